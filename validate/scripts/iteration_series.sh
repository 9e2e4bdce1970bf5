#!/usr/bin/env bash
# Iteration series (docs/validation/README.md, "What would move the figures", item 2): what one
# GEMM k-iteration costs a block alone on its SM, across the whole GEMM menu. Every grid is 132
# blocks (one per SM on an H100 SXM, from start to end), K = 8192 (256 iterations of tile_k 32),
# for each tile {64,128} x {64,128}, warps {4, 8} and stages {2, 3, 4}: 24 launches whose
# kernel time / 256 is a lone block's iteration, from which an iteration law (fixed wait, mma
# chain, fragment reads, load issue, warps per sub-partition) can be fitted or checked; plus the
# same 24 with 264 blocks, two per SM (the 128x128 tile with 8 warps fits one block per SM, so
# its 264 blocks run as two waves; `blocks_per_sm` in each object says which).
# Usage (device call, repo root, .deps/calib carried from validate/scripts/stage.sh):
#   OUT=... validate/scripts/iteration_series.sh   -> $OUT/iter.jsonl (one measure object per
#   case), $OUT/log.txt, $OUT/smi.csv
SERIES_FILE=iter.jsonl
. "$(dirname "$0")/series_common.sh"
for B in 1 2; do
  for TM in 64 128; do
    for TN in 64 128; do
      # N = 12 tiles of TN columns (768 or 1536), M = 11 * B tiles of TM rows: 132 * B blocks
      if [ "$TN" = 64 ]; then N=768; else N=1536; fi
      M=$((132 * B / 12 * TM))
      for W in 4 8; do
        for S in 2 3 4; do
          m --kernel gemm --m $M --n $N --k 8192 --tile-m $TM --tile-n $TN --tile-k 32 --stages $S --warps $W
        done
      done
    done
  done
done
tail -n 5 "$OUT/log.txt"
