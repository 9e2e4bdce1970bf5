"""Checks bench/qk_store_replay on a fixture of three probe lines (one grid, its three ways).

Usage: check_qk_store_replay.py REPLAY_BINARY FIXTURE.jsonl
The dram way writes scores back to DRAM (8 slices of 8 MiB outgrow the H200's 60 MiB L2), the
l2 way (every slice on one matrix) writes none back, and without stores the launch is faster and
writes nothing; a bad `stores` value and a file without probe lines are refused with exit 2.
"""
import json
import subprocess
import sys
import tempfile

binary, fixture = sys.argv[1], sys.argv[2]
out = subprocess.run([binary, fixture, "--gpu", "calibrated/h200"], capture_output=True, text=True)
assert out.returncode == 0, out.stderr
rows = {r["stores"]: r for r in map(json.loads, out.stdout.splitlines())}
print(out.stdout)
assert set(rows) == {"dram", "l2", "none"}, rows.keys()
assert rows["dram"]["dram_write_mib_model"] > 8, rows["dram"]
assert rows["l2"]["dram_write_mib_model"] < 1, rows["l2"]
assert rows["none"]["dram_write_mib_model"] == 0, rows["none"]
assert rows["none"]["ms_model"] < 0.9 * rows["dram"]["ms_model"], (rows["none"], rows["dram"])
for r in rows.values():
    assert r["blocks_per_sm"] == 4 and abs(r["ratio"] - r["ms_model"] / r["ms_plain"]) < 1e-3, r
    # per block and slot: ms x 1000 x 132 SMs x 4 per SM / 8192 blocks
    assert abs(r["us_per_block_slot_model"] - r["ms_model"] * 1e3 * 132 * 4 / 8192) < 1e-3, r
    assert 0 < r["block_us_median_model"] < r["us_per_block_slot_model"], r

with tempfile.NamedTemporaryFile("w", suffix=".jsonl") as bad:
    bad.write('{"probe":"qk_timeline","grid":"x","stores":"sram","tile_m":64,"tile_n":64,"head_dim":64,'
              '"blocks":1024,"ms_plain":1,"block_us_median":1,"slot_gap_us_median":1}\n')
    bad.flush()
    r = subprocess.run([binary, bad.name], capture_output=True, text=True)
    assert r.returncode == 2 and "stores must be dram, l2 or none (got sram)" in r.stderr, (r.returncode, r.stderr)
with tempfile.NamedTemporaryFile("w", suffix=".jsonl") as empty:
    empty.write('{"probe":"device"}\n')
    empty.flush()
    r = subprocess.run([binary, empty.name], capture_output=True, text=True)
    assert r.returncode == 2 and "has no qk_timeline lines" in r.stderr, (r.returncode, r.stderr)
print("qk_store_replay: ways and errors as expected")
