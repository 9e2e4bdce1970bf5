#!/usr/bin/env python3
"""Predicted against measured time, launch by launch, for the cases of a data set.

`tilescope validate` compares whole cases; a multi-launch case (naive attention: QK^T, softmax,
P V) can be right in total while two of its launches are wrong in opposite directions. This
script predicts each selected case with `tilescope predict --format json` and prints every
launch's measured time (median, with the min..max of the repeats) next to the prediction.

    validate/scripts/per_launch.py profiles/validation/h100-sxm-dataset.jsonl \
        --gpu calibrated/h100-sxm --filter '"kernel":"attention-naive"' --filter '"seq":2048'

A case is selected when its data-set line contains every --filter string. Run from the
repository root with TILESCOPE_PROFILE_DIR=$PWD/profiles for bundled profile names.
(2026-11-25: this is how naive attention's P V launch was found 0.70x its measured time while
the case as a whole was within 5%: docs/validation/README.md, change 15.)
"""
import argparse
import json
import subprocess
import sys

# Workload fields of a data-set line and the `tilescope predict` flags that set them.
FLAGS = {
    "dtype": "--dtype", "batch": "--batch", "heads": "--heads", "seq": "--seq", "seq_kv": "--seq-kv",
    "head_dim": "--head-dim", "variant": "--variant", "m": "--m", "n": "--n", "k": "--k",
    "rows": "--rows", "cols": "--cols", "raster": "--raster", "tile_m": "--tile-m",
    "tile_n": "--tile-n", "tile_k": "--tile-k", "stages": "--stages", "warps": "--warps",
}


def predict_args(workload, binary, gpu):
    args = [binary, "predict", "--gpu", gpu, "--format", "json", "--kernel", workload["kernel"]]
    for field, flag in FLAGS.items():
        value = workload.get(field)
        if value is None or (field == "tile_k" and value == 0):  # fused attention has no K depth
            continue
        args += [flag, str(value)]
    if workload.get("causal"):
        args.append("--causal")
    if workload.get("persistent"):
        args.append("--persistent")
    return args


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dataset", help="data set (JSON Lines from tilescope calibrate --measure-dataset)")
    ap.add_argument("--gpu", default="calibrated/h100-sxm", help="profile to predict with")
    ap.add_argument("--bin", default="build/release/bin/tilescope", help="tilescope binary")
    ap.add_argument("--filter", action="append", default=[], help="select lines containing this (repeatable)")
    opt = ap.parse_args()

    shown = 0
    with open(opt.dataset) as f:
        for line in f:
            if not line.startswith('{"workload"') or not all(s in line for s in opt.filter):
                continue
            case = json.loads(line)
            w = case["workload"]
            run = subprocess.run(predict_args(w, opt.bin, opt.gpu), capture_output=True, text=True)
            if run.returncode != 0:
                print(f"predict failed ({run.returncode}): {run.stderr.strip()}", file=sys.stderr)
                return 1
            pred = json.loads(run.stdout)
            tile = f"{w.get('tile_m')}x{w.get('tile_n')}x{w.get('tile_k', 0)}/s{w.get('stages')}/w{w.get('warps')}"
            shape = " ".join(f"{k}={w[k]}" for k in ("batch", "heads", "seq", "head_dim", "m", "n", "k",
                                                       "rows", "cols") if k in w)
            print(f"{w['kernel']} {shape} tile {tile}")
            if len(case["launches"]) != len(pred["launches"]):
                print(f"  {len(case['launches'])} measured launches, {len(pred['launches'])} predicted: not comparable")
                continue
            for ml, pl in zip(case["launches"], pred["launches"]):
                mt = ml["metrics"]["gpu__time_duration.sum"]
                pt = pl["metrics"]["gpu__time_duration.sum"]
                e = ml.get("extra", {})
                spread = ""
                if "time_min_ns" in e and "time_max_ns" in e:
                    spread = f" [{e['time_min_ns'] / 1e3:.1f}..{e['time_max_ns'] / 1e3:.1f}]"
                print(f"  {ml['name']:<24} measured {mt / 1e3:10.1f} us{spread}  predicted {pt / 1e3:10.1f} us"
                      f"  ratio {pt / mt:.3f}")
            shown += 1
    if shown == 0:
        print("no data-set case matches the filters", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
