#!/usr/bin/env python3
"""Fits the L1's usable share (calibration.l1_capacity_fraction) under random replacement
(calibration.l1_random_replacement = 1) to measured L2 bytes of training launches that read
through the L1 (docs/validation/README.md, change 24).

The launches: every *training* softmax case of the data set (since change 27 the data set has
some), the softmax launch of every *training* naive-attention case of the data set (its
measured per-launch lts__t_bytes.sum; predicted as the standalone softmax launch it is: rows =
batch x heads x seq, cols = seq, one row per block, 4 warps, 1024 columns per step, the safe
variant, as core/lower_naive.cpp builds it) and the softmax cases of extra series given with
--also (tilescope measure JSON lines, e.g. the residency series; not in the data set, so neither
half). The held-out half's measurements are never used: each case line's side comes from
`tilescope validate --list-split`, which reads only the measurements' case names (no profile, no
predictions), paired with the data set's case lines in file order.

For each fraction on the grid it predicts every launch with `tilescope predict` and sums the
squared relative lts errors; it prints one line per fraction and the best. Run from the
repository root with TILESCOPE_PROFILE_DIR=$PWD/profiles:

    validate/scripts/fit_l1.py profiles/validation/h100-sxm-dataset.jsonl --gpu calibrated/h100-sxm \
        --also bench/results/h100_residency_series_2026-11-25.jsonl
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor


def case_lines(dataset):
    """The data set's measured cases, in file order: the lines validate reads as cases (a workload,
    status "ok" or none; not microbenchmarks, not the cases listed as skipped)."""
    for line in open(dataset):
        if not line.startswith("{"):
            continue
        d = json.loads(line)
        if "workload" in d and d.get("status", "ok") == "ok":
            yield d


def training_lines(tilescope, dataset, cases):
    """For every case line of the data set (cases: case_lines(dataset)), whether it is a training case: validate's
    own split rule and case names (`--list-split` prints one line per case, in file order), so this
    script builds no case name itself."""
    cmd = [tilescope, "validate", "--measurements", dataset, "--list-split"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        why = (run.stderr.strip().splitlines() or ["exit status %d" % run.returncode])[-1]
        sys.exit(f"fit_l1.py: cannot read the split of {dataset} ({why})")
    listed = [line.split(" ", 1) for line in run.stdout.splitlines()]
    kernels = [d["workload"]["kernel"] for d in cases]
    # The pairing is by position: it must be one listed case per case line, of the same kernel.
    if len(listed) != len(kernels) or any(len(x) != 2 or x[1].split("/", 1)[0] != k
                                          for x, k in zip(listed, kernels)):
        sys.exit(f"fit_l1.py: `validate --list-split` lists {len(listed)} cases for the {len(kernels)} case lines of "
                 f"{dataset}, or not in their order")
    return [side == "train" for side, _ in listed]


def softmax_flags(w):
    return ("--dtype", w["dtype"], "--variant", w["variant"], "--rows", str(w["rows"]), "--cols", str(w["cols"]),
            "--tile-m", str(w["tile_m"]), "--tile-n", str(w["tile_n"]), "--warps", str(w["warps"]), "--stages",
            str(w["stages"]))


def launches(cases, train, also, dataset_softmax=True):
    """(softmax workload flags, measured lts) per launch; cases: the data set's case lines,
    train[i]: whether cases[i] is a training case."""
    out = []
    for d, is_train in zip(cases, train):
        w = d["workload"]
        if not is_train:
            continue
        if w["kernel"] == "softmax" and dataset_softmax:  # change 27's grid
            out.append((softmax_flags(w), d["launches"][0]["metrics"]["lts__t_bytes.sum"]))
            continue
        if w["kernel"] != "attention-naive":
            continue
        sm = [x for x in d["launches"] if x["name"].endswith(":softmax")]
        if not sm:
            continue
        rows = w["batch"] * w["heads"] * w["seq"]
        flags = ("--dtype", w["dtype"], "--variant", w["variant"], "--rows", str(rows), "--cols", str(w["seq_kv"]),
                 "--tile-m", "1", "--tile-n", "1024", "--warps", "4", "--stages", "1")
        out.append((flags, sm[0]["metrics"]["lts__t_bytes.sum"]))
    for path in also:
        for line in open(path):
            if not line.startswith("{"):
                continue
            d = json.loads(line)
            w = d["workload"]
            if w["kernel"] != "softmax":
                continue
            out.append((softmax_flags(w), d["launches"][0]["metrics"]["lts__t_bytes.sum"]))
    return out


def predict_lts(tilescope, profile, flags):
    cmd = [tilescope, "predict", "--gpu", profile, "--kernel", "softmax", *flags, "--format", "json"]
    d = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    return d["launches"][0]["metrics"]["lts__t_bytes.sum"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dataset")
    ap.add_argument("--gpu", required=True, help="the profile to start from (its other fields are kept)")
    ap.add_argument("--also", action="append", default=[], help="extra measured series (softmax lines are used)")
    ap.add_argument("--grid", default="0.30:1.00:0.05", help="first:last:step of the fraction (default 0.30:1.00:0.05)")
    ap.add_argument("--lru", action="store_true", help="keep LRU replacement (the comparison: --grid 1:1:1 --lru)")
    ap.add_argument("--no-dataset-softmax", action="store_true",
                    help="leave out the data set's softmax cases (change 25's 31 launches)")
    ap.add_argument("--tilescope", default="build/release/bin/tilescope")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()

    cases = list(case_lines(a.dataset))  # read once: the split's pairing and the launches
    train = training_lines(a.tilescope, a.dataset, cases)
    pts = launches(cases, train, a.also, not a.no_dataset_softmax)
    if not pts:
        sys.exit("fit_l1.py: no training launch reads through the L1")
    distinct = sorted({f for f, _ in pts})
    path = a.gpu if a.gpu.endswith(".json") else os.path.join(os.environ.get("TILESCOPE_PROFILE_DIR", "profiles"),
                                                               a.gpu + ".json")
    profile_json = json.load(open(path))
    first, last, step = (float(x) for x in a.grid.split(":"))
    grid = []
    f = first
    while f <= last + 1e-9:
        grid.append(round(f, 4))
        f += step
    best = None
    with tempfile.TemporaryDirectory() as tmp:
        for frac in grid:
            p = json.loads(json.dumps(profile_json))
            p["calibration"]["l1_random_replacement"] = 0 if a.lru else 1
            p["calibration"]["l1_capacity_fraction"] = frac
            path = os.path.join(tmp, f"l1-{frac}.json")
            json.dump(p, open(path, "w"))
            with ThreadPoolExecutor(a.jobs) as ex:
                pred = dict(zip(distinct, ex.map(lambda fl: predict_lts(a.tilescope, path, fl), distinct)))
            errs = [(pred[fl] - m) / m for fl, m in pts]
            sse = sum(e * e for e in errs)
            mape = 100 * sum(abs(e) for e in errs) / len(errs)
            print(f"fraction {frac:.2f}: lts MAPE {mape:.2f}% over {len(errs)} launches, sum of squares {sse:.5f}")
            if best is None or sse < best[1]:
                best = (frac, sse, mape)
    print(f"best: l1_capacity_fraction {best[0]:.2f} (lts MAPE {best[2]:.2f}%, {len(pts)} launches, "
          f"{len(distinct)} distinct)")


if __name__ == "__main__":
    main()
