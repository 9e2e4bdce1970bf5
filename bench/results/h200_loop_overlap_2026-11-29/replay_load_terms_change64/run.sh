#!/usr/bin/env bash
# Replays each probe row with each variant profile, 16 at a time; outputs $OUT/<variant>/<row>.jsonl
export LD_LIBRARY_PATH=$PWD/.deps/rep:${LD_LIBRARY_PATH:-}
export TILESCOPE_PROFILE_DIR=$PWD/profiles
for v in .deps/rep/v_*.json; do for r in .deps/rep/rows/*.jsonl; do echo "$v $r"; done; done |
  xargs -P "$(nproc)" -L 1 sh -c 'n=$(basename $0 .json); mkdir -p $OUT/$n; timeout 500 .deps/rep/loop_overlap_replay $1 --gpu $0 > $OUT/$n/$(basename $1) 2> $OUT/$n/$(basename $1 .jsonl).err'
echo done
