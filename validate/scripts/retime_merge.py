#!/usr/bin/env python3
"""Replace the times of a measured data set with those of later time-only passes.

A data set from `tilescope calibrate --measure-dataset` holds, per case and launch, CUPTI byte
counters and a CUDA-event time (the median of the repeats, with their min and max). Where the
repeats were few, a launch whose run-to-run spread is wide gives a median that moves from one
measurement to the next. This script keeps every case's counters and takes its times from one
or more re-timing passes (`calibrate --measure-dataset FILE --no-counters --repeats R`), made
with the same kernels, inputs (seed) and L2 flush:

    validate/scripts/retime_merge.py DATASET.jsonl PASS1.jsonl [PASS2.jsonl ...] --out NEW.jsonl

Per case and launch, the new time is the mean of the passes' medians; time_min_ns / time_max_ns
become the extremes over the passes; the old median is kept as extra "time_before_retime_ns" (the first one, if re-timed twice);
the derived rates (hbm_bytes_per_s, l2_bytes_per_s, tensor_tflops) are recomputed; provenance
gains "retimed" (the passes' timing, dates and commits). Comment lines and microbenchmark lines
are copied unchanged. A case missing from any pass, or whose launches differ (names, count,
grid), is an error (exit 2): a data set is re-timed whole or not at all. A summary of how far
the passes agree with each other and with the old times goes to stderr.
"""
import argparse
import json
import statistics
import sys

TIME = "gpu__time_duration.sum"


def fail(msg):
    print("retime_merge: error: " + msg, file=sys.stderr)
    sys.exit(2)


def case_key(rec):
    return json.dumps(rec["workload"], sort_keys=True)


def read_jsonl(path):
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            out.append((line, None))
            continue
        try:
            out.append((line, json.loads(line)))
        except json.JSONDecodeError as e:
            fail(f"{path}:{n}: not JSON ({e.msg})")
    return out


def load_pass(path):
    cases = {}
    for _, rec in read_jsonl(path):
        if rec is None or "workload" not in rec or rec.get("status", "ok") != "ok":
            continue
        key = case_key(rec)
        if key in cases:
            fail(f"{path}: a case appears twice: {key}")
        cases[key] = rec
    if not cases:
        fail(f"{path}: no measured case")
    return cases


def rates(m, extra, t_ns):
    """Recompute the time-derived rates that the measurement recorded (others are not added)."""
    secs = t_ns * 1e-9
    if "hbm_bytes_per_s" in extra and m.get("dram__bytes_read.sum") is not None:
        extra["hbm_bytes_per_s"] = (m["dram__bytes_read.sum"] + m["dram__bytes_write.sum"]) / secs
    if "l2_bytes_per_s" in extra and m.get("lts__t_bytes.sum") is not None:
        extra["l2_bytes_per_s"] = m["lts__t_bytes.sum"] / secs
    if "tensor_tflops" in extra and m.get("flops_tensor") is not None:
        extra["tensor_tflops"] = m["flops_tensor"] / secs / 1e12


def print_spread(what, values):
    v = sorted(values)
    print(f"  {what}: median {100 * statistics.median(v):.2f}%, 90th pct {100 * v[int(0.9 * (len(v) - 1))]:.2f}%, "
          f"max {100 * v[-1]:.2f}%", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dataset")
    ap.add_argument("passes", nargs="+")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    data = read_jsonl(args.dataset)
    passes = [load_pass(p) for p in args.passes]
    pass_provenance = [next(iter(p.values()))["provenance"] for p in passes]
    retimed = {
        "timing": pass_provenance[0].get("timing", "?"),
        "passes": str(len(passes)),
        "dates": ",".join(sorted({pv.get("date", "?")[:10] for pv in pass_provenance})),
        "tilescope_commit": ",".join(sorted({pv.get("tilescope_commit", "?") for pv in pass_provenance})),
        "how": "per case and launch: mean of the passes' medians (validate/scripts/retime_merge.py); counters from the original measurement",
    }

    out_lines, moved, spread = [], [], []
    n_cases = 0
    for line, rec in data:
        if rec is None or "workload" not in rec or rec.get("status", "ok") != "ok":
            out_lines.append(line)
            continue
        key = case_key(rec)
        got = []
        for p, path in zip(passes, args.passes):
            if key not in p:
                fail(f"{path}: case missing: {key}")
            got.append(p[key])
        for g, path in zip(got, args.passes):
            if [(l["name"], l["grid"]) for l in g["launches"]] != [(l["name"], l["grid"]) for l in rec["launches"]]:
                fail(f"{path}: the launches differ from the data set's for {key}")
        old_total = rec["total"]["metrics"][TIME]
        for i, launch in enumerate(rec["launches"]):
            medians = [g["launches"][i]["metrics"][TIME] for g in got]
            t = statistics.fmean(medians)
            # A data set re-timed before keeps its first measurement's median.
            launch.setdefault("extra", {}).setdefault("time_before_retime_ns", launch["metrics"][TIME])
            launch["metrics"][TIME] = t
            launch["extra"]["time_min_ns"] = min(g["launches"][i]["extra"]["time_min_ns"] for g in got)
            launch["extra"]["time_max_ns"] = max(g["launches"][i]["extra"]["time_max_ns"] for g in got)
            rates(launch["metrics"], launch["extra"], t)
        start = 0.0
        for launch in rec["launches"]:
            launch["start_ns"] = start
            start += launch["metrics"][TIME]
        totals = [g["total"]["metrics"][TIME] for g in got]
        t_total = statistics.fmean(totals)
        rec["total"]["metrics"][TIME] = t_total
        rec.setdefault("extra", {}).setdefault("time_before_retime_ns", old_total)
        rec["extra"]["time_sum_of_launch_medians_ns"] = start
        rates(rec["total"]["metrics"], rec["extra"], t_total)
        rec["provenance"]["retimed"] = retimed
        moved.append(abs(t_total / old_total - 1))
        if len(totals) > 1:
            spread.append((max(totals) - min(totals)) / t_total)
        out_lines.append(json.dumps(rec, separators=(",", ":")))
        n_cases += 1

    note = (f"# times re-timed: mean of the medians of {len(passes)} time-only pass(es) ({retimed['timing']}; "
            f"{retimed['dates']}; tilescope {retimed['tilescope_commit']}), counters as first measured; "
            f"validate/scripts/retime_merge.py")
    at = next((i for i, (line, _) in enumerate(data) if not line.startswith("#")), 0)
    out_lines.insert(at, note)
    with open(args.out, "w") as f:
        f.write("\n".join(out_lines) + "\n")
    print(f"retimed {n_cases} cases from {len(passes)} pass(es) -> {args.out}", file=sys.stderr)
    print_spread("|new/old - 1|", moved)
    if spread:
        print_spread("pass-to-pass (max-min)/mean", spread)


if __name__ == "__main__":
    main()
