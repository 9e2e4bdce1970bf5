#!/usr/bin/env bash
# Tail-wave series (docs/validation/README.md, "What would move the figures"): does the H100
# spread the blocks of a last, partial wave over all SMs, or fill whole SMs? GEMM 64x64 (3 blocks
# per SM, 396 slots) and 64x128 (2 per SM, 264 slots), K = 8192 (256 iterations), grids of one
# full wave plus r blocks. If the r tail blocks are spread, the launch takes about one full-wave
# time plus that of ceil(r / 132) blocks per SM; if they fill whole SMs, two full-wave times.
# Usage (device call, repo root, .deps/calib carried from validate/scripts/stage.sh of a CUDA
# build): OUT=... validate/scripts/tail_series.sh -> $OUT/tail.jsonl, $OUT/log.txt, $OUT/smi.csv.
# Compare with `tilescope validate --measurements $OUT/tail.jsonl --split all --gpu PROFILE`.
SERIES_FILE=tail.jsonl
. "$(dirname "$0")/series_common.sh"
# 64x64: n = 768 is 12 tile columns; m = 64 x rows gives 12 x rows blocks: 396 + r.
for rows in 33 36 39 44 55 66; do
  m --kernel gemm --m $((64 * rows)) --n 768 --k 8192 --tile-m 64 --tile-n 64 --tile-k 32 --stages 3 --warps 8
done
# 64x128: n = 1536 is 12 tile columns: 264 + r blocks.
for rows in 22 33 44; do
  m --kernel gemm --m $((64 * rows)) --n 1536 --k 8192 --tile-m 64 --tile-n 128 --tile-k 32 --stages 3 --warps 8
done
tail -n 5 "$OUT/log.txt"
