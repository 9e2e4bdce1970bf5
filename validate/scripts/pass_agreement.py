#!/usr/bin/env python3
"""How well the measured tile order repeats itself, next to how well the model predicts it.

    validate/scripts/pass_agreement.py REPORT.json DATASET.jsonl --pass A.jsonl B.jsonl [--pass C.jsonl D.jsonl ...]

REPORT.json is `tilescope validate --split all --format json` on DATASET.jsonl (the data set it
read, in the same order: the script checks every case's measured time against the report's).
Each --pass names two independent time-only measurements of (some of) the data set's cases, e.g.
change 21's two re-timing passes (`calibrate --measure-dataset --no-counters --repeats 25`);
several --pass options cover different cases (the softmax grid was re-timed by its own pair).

Per split and kernel family it prints the mean over the tile sweeps of the Spearman rank
correlation of
  - model:   predicted against measured time (what `validate` reports), and
  - repeat:  the first pass's times against the second's,
over the sweeps both passes cover whole. `repeat` is the ceiling a ranking target can be judged
against: a sweep whose tiles the GPU itself orders differently from one pass to the next cannot
be ranked right by any model. Sweeps below 1 in `repeat` are listed.

Exit 2 with a one-line error when a file cannot be read or the data set and the report disagree.
"""
import argparse
import collections
import json
import sys

TIME = "gpu__time_duration.sum"


def fail(msg):
    print("pass_agreement: error: " + msg, file=sys.stderr)
    sys.exit(2)


def records(path):
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            fail(f"{path}:{n}: not JSON ({e.msg})")
        if "workload" in rec and rec.get("status", "ok") == "ok":
            out.append(rec)
    return out


def key(rec):
    return json.dumps(rec["workload"], sort_keys=True)


def total_time(rec):
    total = rec.get("total", {}).get("metrics", {}).get(TIME)
    if total is not None:
        return float(total)
    return sum(float(l["metrics"][TIME]) for l in rec["launches"])


def ranks(x):
    order = sorted(range(len(x)), key=lambda i: x[i])
    r = [0.0] * len(x)
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and x[order[j + 1]] == x[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2.0  # ties share their mean rank
        i = j + 1
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    num = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    den = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return num / den if den > 0 else None  # a sweep of equal times has no order


def read_all_report(path, fail):
    """A `tilescope validate --split all --format json` report; `fail(message)` on anything else."""
    try:
        with open(path) as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    if not isinstance(rep, dict) or rep.get("split") != "all" or "cases" not in rep:
        fail(f"{path}: not a validate JSON report of --split all")
    return rep


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("report")
    ap.add_argument("dataset")
    ap.add_argument("--pass", dest="passes", nargs=2, action="append", required=True, metavar=("A", "B"))
    a = ap.parse_args()

    cases = read_all_report(a.report, fail)["cases"]
    data = records(a.dataset)
    if len(data) != len(cases):
        fail(f"{a.dataset} has {len(data)} cases, {a.report} {len(cases)}: not the data set the report read")

    first, second = {}, {}
    for pa, pb in a.passes:
        for src, dst in ((pa, first), (pb, second)):
            for rec in records(src):
                dst[key(rec)] = total_time(rec)

    sweeps = collections.OrderedDict()
    for rec, case in zip(data, cases):
        t = total_time(rec)
        m = float(case["measured"]["time"])
        if abs(t - m) > 1e-6 * max(abs(t), 1.0):
            fail(f"case {case['case']}: measured time {m} in the report, {t} in {a.dataset}: not the same data set")
        k = key(rec)
        sweeps.setdefault(case["case"].split("|")[0], []).append(
            (case["split"], case["family"], float(case["predicted"]["time"]), m, first.get(k), second.get(k)))

    groups = collections.defaultdict(lambda: {"model": [], "repeat": []})
    below = []
    for name, tiles in sweeps.items():
        if len(tiles) < 2:
            continue
        split, family = tiles[0][0], tiles[0][1]
        model = spearman([t[2] for t in tiles], [t[3] for t in tiles])
        if model is None or any(t[4] is None or t[5] is None for t in tiles):
            continue  # not covered whole by the passes
        repeat = spearman([t[4] for t in tiles], [t[5] for t in tiles])
        if repeat is None:
            continue
        for g in ((split, "all"), (split, family)):
            groups[g]["model"].append(model)
            groups[g]["repeat"].append(repeat)
        if repeat < 1.0:
            below.append((split, name, repeat, model))

    if not groups:
        fail("no tile sweep is covered whole by the passes")
    print(f"{'split':8} {'family':18} {'sweeps':>6} {'model':>7} {'repeat':>7}")
    for (split, family) in sorted(groups, key=lambda g: (g[0] != "train", g[1] != "all", g[1])):
        g = groups[(split, family)]
        n = len(g["model"])
        print(f"{split:8} {family:18} {n:6d} {sum(g['model']) / n:7.3f} {sum(g['repeat']) / n:7.3f}")
    if below:
        print("sweeps the passes order differently (split, sweep, repeat, model):")
        for split, name, repeat, model in below:
            print(f"  {split:8} {name}  {repeat:.3f}  {model:.3f}")


if __name__ == "__main__":
    main()
