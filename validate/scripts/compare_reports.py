#!/usr/bin/env python3
"""Compare two profiles on the same data set, sweep by sweep and case by case.

    validate/scripts/compare_reports.py BASE.json CANDIDATE.json [--resamples N] [--seed S]

BASE.json and CANDIDATE.json are `tilescope validate --split all --format json` reports of two
profiles (or models) on one data set. For each split (train, heldout) the script pairs the
tile sweeps and the cases by name and prints the candidate's mean minus the base's for the
per-sweep Spearman and top-1 regret and the per-case absolute percentage error of time, HBM and
L2 bytes, each with a 95% paired percentile-bootstrap interval (the same sweeps or cases resampled
for both profiles, N resamples, fixed seed), and how many sweeps changed their Spearman.

Why paired: a mean Spearman over a few dozen sweeps of three to nine tiles has a 95% interval
about ±0.08 wide (`validate` prints it), so two profiles' separate figures say little about which
ranks better; on the same sweeps most of that spread cancels. An interval that contains 0 means
the data set cannot tell the two apart on that figure.

Exit 2 with a one-line error when a file cannot be read, is not a validate JSON report of
--split all, or the two reports do not cover the same sweeps and cases.
"""
import argparse
import json
import math
import random
import sys

QUANTITIES = [("time", "time APE"), ("hbm_bytes", "HBM bytes APE"), ("lts_bytes", "L2 bytes APE")]


def fail(msg):
    print("compare_reports: error: " + msg, file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path) as f:
            r = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    if not isinstance(r, dict) or "sweeps" not in r or "cases" not in r:
        fail(f"{path}: not a `tilescope validate --format json` report (no sweeps/cases)")
    if r.get("split") != "all":
        fail(f"{path}: report of --split {r.get('split')}; run validate with --split all")
    return r


def finite(x):
    return isinstance(x, (int, float)) and math.isfinite(x)


def paired_interval(diffs, resamples, seed):
    """Mean of diffs and the 2.5% / 97.5% quantiles of the resampled means."""
    n = len(diffs)
    rng = random.Random(seed)
    means = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))

    def q(p):
        pos = p * (len(means) - 1)
        i = int(pos)
        return means[i] + (pos - i) * (means[i + 1] - means[i]) if i + 1 < len(means) else means[i]

    return sum(diffs) / n, q(0.025), q(0.975)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base")
    ap.add_argument("candidate")
    ap.add_argument("--resamples", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.resamples < 1:
        fail(f"--resamples must be at least 1 (got {a.resamples})")
    base, cand = load(a.base), load(a.candidate)
    bs = {s["sweep"]: s for s in base["sweeps"]}
    cs = {s["sweep"]: s for s in cand["sweeps"]}
    bc = {c["case"]: c for c in base["cases"]}
    cc = {c["case"]: c for c in cand["cases"]}
    if set(bs) != set(cs) or set(bc) != set(cc):
        only = sorted((set(bs) ^ set(cs)) | (set(bc) ^ set(cc)))
        fail(f"the reports cover different sweeps or cases ({len(only)} differ, e.g. {only[0]})")
    print(f"candidate {a.candidate} minus base {a.base}; 95% paired bootstrap intervals "
          f"({a.resamples} resamples, seed {a.seed})")
    for split in ("train", "heldout"):
        print(f"{split}:")
        rows = []
        for key, label in (("spearman", "mean Spearman"), ("regret", "mean top-1 regret")):
            pairs = [(bs[k][key], cs[k][key]) for k in sorted(bs)
                     if bs[k]["split"] == split and finite(bs[k][key]) and finite(cs[k][key])]
            changed = sum(1 for b, c in pairs if abs(c - b) > 1e-12)
            rows.append((label, pairs, f"{len(pairs)} sweeps, {changed} changed", key == "regret"))
        for q, label in QUANTITIES:
            pairs = [(bc[k]["ape"][q], cc[k]["ape"][q]) for k in sorted(bc)
                     if bc[k]["split"] == split and finite(bc[k]["ape"].get(q)) and finite(cc[k]["ape"].get(q))]
            rows.append((label, pairs, f"{len(pairs)} cases", True))
        for label, pairs, count, percent in rows:
            if not pairs:
                print(f"  {label:20s} n/a ({count})")
                continue
            m, lo, hi = paired_interval([c - b for b, c in pairs], a.resamples, a.seed)
            mb = sum(b for b, _ in pairs) / len(pairs)
            mc = sum(c for _, c in pairs) / len(pairs)
            if percent:
                print(f"  {label:20s} {100 * mb:7.2f}% -> {100 * mc:7.2f}%  difference {100 * m:+.2f} points "
                      f"(95% interval {100 * lo:+.2f} to {100 * hi:+.2f}; {count})")
            else:
                print(f"  {label:20s} {mb:8.3f} -> {mc:8.3f}  difference {m:+.3f} "
                      f"(95% interval {lo:+.3f} to {hi:+.3f}; {count})")


if __name__ == "__main__":
    main()
