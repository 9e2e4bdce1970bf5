#!/usr/bin/env python3
"""Splices partial training-half reports into a full one, so a look that moves only some families
can be judged on the whole training half without predicting the rest again.

    validate/scripts/splice_train_report.py BASE.json OUT.json PART.json [PART.json ...]

BASE.json is a `tilescope validate --split train --format json` report of the whole training half
(for example the bundled profile with its stored predictions). Each PART.json is a report of the
same data set restricted with `--cases-matching`, made with the look's profile. OUT.json is BASE's
training cases and sweeps with every case and sweep that a PART also holds replaced by the PART's,
written as a `--split all` report with only the training half, which
`validate/scripts/compare_reports.py BASE_SPLICED.json OUT.json` compares case by case (splice BASE
with no PART to get BASE_SPLICED).

Only valid when the look cannot move the cases outside the PARTs (say so where it is used: e.g. a
per-warp tensor rate moves only the launches with mma in the warp model). Held-out cases are
dropped, never spliced. Exit 2 with a one-line error when a file cannot be read, is not a validate
report, or a PART holds a training case or sweep that BASE does not.
"""
import json
import sys

DROP = ("summary", "checks", "families", "launches", "tile_bias", "launches_unpaired", "cases", "sweeps")


def fail(msg):
    print("splice_train_report: error: " + msg, file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path) as f:
            r = json.load(f)
        cases = [c for c in r["cases"] if c["split"] == "train"]
        sweeps = [s for s in r["sweeps"] if s["split"] == "train"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"{path}: not a validate JSON report ({e})")
    return r, cases, sweeps


def main(argv):
    if len(argv) < 3:
        fail("usage: splice_train_report.py BASE.json OUT.json [PART.json ...]")
    base, base_cases, base_sweeps = load(argv[1])
    if not base_cases:
        fail(f"{argv[1]}: no training cases")
    cases = {c["case"]: c for c in base_cases}
    sweeps = {s["sweep"]: s for s in base_sweeps}
    for path in argv[3:]:
        _, part_cases, part_sweeps = load(path)
        for c in part_cases:
            if c["case"] not in cases:
                fail(f"{path}: training case {c['case']} is not in {argv[1]}")
            cases[c["case"]] = c
        for s in part_sweeps:
            if s["sweep"] not in sweeps:
                fail(f"{path}: training sweep {s['sweep']} is not in {argv[1]}")
            sweeps[s["sweep"]] = s
    out = {k: v for k, v in base.items() if k not in DROP}
    out["split"] = "all"
    out["cases"] = list(cases.values())
    out["sweeps"] = list(sweeps.values())
    try:
        with open(argv[2], "w") as f:
            json.dump(out, f)
    except OSError as e:
        fail(f"{argv[2]}: {e}")
    print(f"splice_train_report: {len(out['cases'])} training cases, {len(out['sweeps'])} sweeps -> {argv[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
