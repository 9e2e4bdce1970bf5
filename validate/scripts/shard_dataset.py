#!/usr/bin/env python3
"""Split a validation data set (JSONL) into shards of about equal simulation cost.

Why: simulating all 320 cases of profiles/validation/h100-sxm-dataset.jsonl takes tens of
CPU-minutes; the device machine's 16 cores run one `tilescope validate --jobs 1` per shard in
parallel (validate/scripts/fit_and_validate.sh), and each finished shard's predictions survive a
time limit. The shards are plain subsets of the data set's case lines, so a case's prediction does
not depend on the sharding; the merged predictions file is checked by
`tilescope validate --predictions` (every case must be present; the cheapest are re-predicted).

Usage: shard_dataset.py DATA.jsonl COSTS OUTDIR [SHARDS]
  COSTS: lines "<cost> ... <case name>" (the case name is the last field), e.g. the simulation
  cost proxy (validate/prediction_cache.hpp simulation_cost) of each case; cases missing from it
  count as cost 1. Writes OUTDIR/shard-NNN.jsonl, most expensive first (greedy, one expensive case
  per shard, cheap cases packed together up to the total / SHARDS).
"""
import json
import os
import sys


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    data, costs_path, outdir = sys.argv[1:4]
    shards = int(sys.argv[4]) if len(sys.argv) > 4 else 48
    names, cost = [], {}
    with open(costs_path) as f:
        for row in f:
            parts = row.split()
            if len(parts) >= 2:
                names.append(parts[-1])
                cost[parts[-1]] = float(parts[0])
    header, cases = [], []
    with open(data) as f:
        for line in f:
            if line.startswith('{"workload"') and '"model":"measured"' in line:
                cases.append(line)
            else:
                header.append(line)
    if len(names) != len(cases):
        sys.exit(f"cost file lists {len(names)} cases, data set has {len(cases)}")
    order = sorted(range(len(cases)), key=lambda i: -cost.get(names[i], 1.0))
    target = sum(cost.get(n, 1.0) for n in names) / shards
    groups, current, current_cost = [], [], 0.0
    for i in order:
        c = cost.get(names[i], 1.0)
        if current and current_cost + c > target:
            groups.append(current)
            current, current_cost = [], 0.0
        current.append(i)
        current_cost += c
    if current:
        groups.append(current)
    os.makedirs(outdir, exist_ok=True)
    for g, members in enumerate(groups):
        with open(os.path.join(outdir, f"shard-{g:03d}.jsonl"), "w") as f:
            f.writelines(l for l in header if l.startswith("#"))
            for i in sorted(members):  # data-set order inside a shard
                f.write(cases[i])
    print(f"{len(groups)} shards, {len(cases)} cases")


if __name__ == "__main__":
    main()
