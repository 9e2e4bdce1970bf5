#!/usr/bin/env python3
"""How much of the model's tile-ranking error is the same tile's error in every sweep.

    validate/scripts/tile_bias.py REPORT.json [--softmax-groups none|tile|columns] [--launches]

REPORT.json is `tilescope validate --split all --format json`. Within each tile sweep the script
takes every tile's residual r = ln(predicted / measured time) minus the sweep's mean residual:
what is left once the sweep's common error is taken out, i.e. the part of the error that can
change the sweep's order. It groups the residuals by kernel family, tile (the case name after
`|`: tile, stages, warps) and, for attention, head dimension, and prints per group the mean of
the training half's residuals and of the held-out half's ("bias", as a factor - 1).

Then, as a diagnostic and nothing more, it divides every prediction by exp(training bias of its
group) and prints, per split and family, the mean Spearman of the model and of the predictions
so corrected. A per-tile factor is not a model: it is the per-case fudge issue 5 forbids, has no
physical meaning and is never used by tilescope. What the figures say is how much of the
ranking error is systematic per tile (a model that got each tile's cost relative to its sweep
right as the training half shows it would rank the held-out sweeps that well) and how much
differs from sweep to sweep. The biases come from the training half only, so the held-out figures
are a fair test of whether they repeat.

The bias table and the correlation of the two halves' biases are the report's own (`tile_bias`,
which `tilescope validate` also writes as its "Per-tile bias" section; softmax grouped by tile). Softmax
tiles behave differently by shape (a four-warp block has idle threads at 512 columns), so the
what-if leaves softmax out of the correction by default (`--softmax-groups none`); `tile`
corrects its cases by tile, `columns` by tile and column count.

With --launches it also prints, for the cases of several launches (naive attention's QK^T,
softmax and P V), the same bias per launch (the launch's residual minus its mean over the
sweep's tiles) and the launch's mean share of its case's measured time, so that a tile's bias
can be traced to the launch that carries it.

Exit 2 with a one-line error when the report cannot be read or is not one of --split all.
"""
import argparse
import collections
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pass_agreement import read_all_report, spearman  # noqa: E402  (same folder; ties share their mean rank)


def fail(msg):
    print("tile_bias: error: " + msg, file=sys.stderr)
    sys.exit(2)


def group_of(sweep, tile, family, softmax_groups):
    if family == "softmax":
        if softmax_groups == "none":
            return None
        if softmax_groups == "columns":
            return (family, tile, sweep.rsplit("/", 1)[-1])
        return (family, tile, "")
    if family.startswith("attention"):
        dims = [p for p in sweep.split("/") if p.startswith("d") and p[1:].isdigit()]
        return (family, tile, dims[0] if dims else "")
    return (family, tile, "")


def cell(bias, n):
    """A table cell: a bias (a factor - 1) and the sweeps it comes from, or "-" without any."""
    return f"{100.0 * bias:+6.1f}% ({n})" if n else "-"


def bias_cells(v):
    """The training and held-out cells of a group's row from its residuals (logs)."""
    return tuple(cell(math.expm1(sum(v[h]) / len(v[h])), len(v[h])) if v[h] else "-" for h in ("train", "heldout"))


def rms(xs):
    return math.sqrt(sum(x * x for x in xs) / len(xs)) if xs else float("nan")


def print_launch_bias(sweeps, split_of):
    """Per (group, launch): the launch's within-sweep residual and its share of the case's time."""
    lres = collections.defaultdict(lambda: {"train": [], "heldout": [], "share": []})
    for sweep, tiles in sweeps.items():
        names = [tuple(l.get("name", "") for l in t[4]) for t in tiles]
        if len(names[0]) < 2 or any(n != names[0] for n in names):
            continue  # single-launch cases, or launches that do not pair up across the sweep
        for li, name in enumerate(names[0]):
            try:
                lr = [math.log(float(t[4][li]["predicted"]["time"]) / float(t[4][li]["measured"]["time"]))
                      for t in tiles]
            except (KeyError, TypeError, ValueError, ZeroDivisionError):
                fail(f"sweep {sweep}: launch {name} has no predicted and measured time")
            mean = sum(lr) / len(lr)
            for t, x in zip(tiles, lr):
                v = lres[group_of(sweep, t[0], t[1], "tile") + (name.split(":")[-1],)]
                v[split_of[sweep]].append(x - mean)
                v["share"].append(float(t[4][li]["measured"]["time"]) / t[3])
    if not lres:
        print("no multi-launch sweep in the report")
        return
    print("per launch: the launch's residual minus its mean over the sweep's tiles; share = its part of the case's measured time")
    print(f"{'family':18} {'tile':22} {'d':>4} {'launch':>8} {'share':>6} {'train (n)':>13} {'held out (n)':>13}")
    for g in sorted(lres):
        v = lres[g]
        tr, ho = bias_cells(v)
        d = g[2][1:] if g[2].startswith("d") else g[2]
        print(f"{g[0]:18} {g[1]:22} {d:>4} {g[3]:>8} {sum(v['share']) / len(v['share']):6.2f} {tr:>13} {ho:>13}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("report")
    ap.add_argument("--softmax-groups", choices=("none", "tile", "columns"), default="none")
    ap.add_argument("--launches", action="store_true", help="also the bias per launch of multi-launch cases")
    a = ap.parse_args()
    rep = read_all_report(a.report, fail)
    if "sweeps" not in rep:
        fail(f"{a.report}: not a validate JSON report of --split all")

    split_of = {s["sweep"]: s["split"] for s in rep["sweeps"]}
    sweeps = collections.OrderedDict()
    for c in rep["cases"]:
        try:
            sweep, tile = c["case"].split("|", 1)
            p, m = float(c["predicted"]["time"]), float(c["measured"]["time"])
        except (KeyError, TypeError, ValueError):
            fail(f"{a.report}: case {c.get('case', '?')}: no predicted and measured time")
        if sweep not in split_of:
            continue  # a case that is not part of a tile sweep
        if not (p > 0 and m > 0):
            fail(f"{a.report}: case {c['case']}: time must be > 0 (predicted {p}, measured {m})")
        sweeps.setdefault(sweep, []).append((tile, c["family"], p, m, c.get("launches") or []))
    if not sweeps:
        fail(f"{a.report}: no tile sweep")

    # The bias table and the correlation of the halves' biases: validate's own (tile_bias).
    table = rep.get("tile_bias")
    if not isinstance(table, dict) or not isinstance(table.get("groups"), list):
        fail(f"{a.report}: no tile_bias in the report (written by a tilescope before it had one)")
    print("tile bias: mean within-sweep residual, ln(predicted/measured) minus its sweep's mean, as a factor - 1")
    print(f"{'family':18} {'tile':22} {'d':>4} {'train (n)':>13} {'held out (n)':>13}")
    for g in table["groups"]:
        d = g["variant"][2:] if g["variant"].startswith("d=") else g["variant"]
        tr, ho = cell(g["train"], g["train_sweeps"]), cell(g["heldout"], g["heldout_sweeps"])
        print(f"{g['family']:18} {g['tile']:22} {d:>4} {tr:>13} {ho:>13}")
    both = sum(1 for g in table["groups"] if g["train_sweeps"] and g["heldout_sweeps"])
    if table.get("correlation") is not None:
        print(f"groups in both halves: {both}; Pearson r of their training and held-out bias: {table['correlation']:.3f}")

    # Within-sweep residuals; the what-if's groups keep the training ones.
    fix = collections.defaultdict(list)
    within = {"train": [], "heldout": []}
    for sweep, tiles in sweeps.items():
        split = split_of[sweep]
        lr = [math.log(p / m) for _, _, p, m, _ in tiles]
        mean = sum(lr) / len(lr)
        for (tile, family, _, _, _), x in zip(tiles, lr):
            within[split].append(x - mean)
            g = group_of(sweep, tile, family, a.softmax_groups)
            if g is not None and split == "train":
                fix[g].append(x - mean)
    bias = {g: sum(v) / len(v) for g, v in fix.items() if v}

    if a.launches:
        print_launch_bias(sweeps, split_of)

    # What-if: every prediction divided by its group's training bias.
    scores = collections.defaultdict(lambda: [[], []])
    fixed = {"train": [], "heldout": []}
    for sweep, tiles in sweeps.items():
        split = split_of[sweep]
        pred = [p for _, _, p, _, _ in tiles]
        meas = [m for _, _, _, m, _ in tiles]
        corr = [p / math.exp(bias.get(group_of(sweep, t, f, a.softmax_groups), 0.0)) for t, f, p, _, _ in tiles]
        lr = [math.log(c / m) for c, m in zip(corr, meas)]
        mean = sum(lr) / len(lr)
        fixed[split].extend(x - mean for x in lr)
        s_model, s_corr = spearman(pred, meas), spearman(corr, meas)
        if s_model is None or s_corr is None:
            continue  # equal measured times: no order
        for key in ((split, "all"), (split, tiles[0][1])):
            scores[key][0].append(s_model)
            scores[key][1].append(s_corr)
    for split in ("train", "heldout"):
        print(f"within-sweep residual rms, {split}: {100 * rms(within[split]):.2f}% model, "
              f"{100 * rms(fixed[split]):.2f}% with the training biases taken out")
    print(f"mean Spearman, model and with the training biases taken out (softmax groups: {a.softmax_groups}):")
    print(f"{'split':8} {'family':18} {'sweeps':>6} {'model':>7} {'no bias':>7}")
    for key in sorted(scores, key=lambda k: (k[0] != "train", k[1] != "all", k[1])):
        m, c = scores[key]
        print(f"{key[0]:8} {key[1]:18} {len(m):6d} {sum(m) / len(m):7.3f} {sum(c) / len(c):7.3f}")


if __name__ == "__main__":
    main()
