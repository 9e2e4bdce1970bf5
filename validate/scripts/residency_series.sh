#!/usr/bin/env bash
# Residency series (docs/validation/README.md change 17): per-iteration time against the number
# of resident blocks per SM. Each grid is 132 x B blocks (one wave on an H100 SXM: every SM holds
# exactly B blocks from start to end), for GEMM 64x64 / 64x128 / 128x64 / 128x128 (K = 8192:
# 256 iterations), flash2 32x32 and 64x64 (d = 64, 132 iterations) and the online softmax with
# one-warp and four-warp blocks (16384 columns).
# Usage (device call, repo root, .deps/calib carried from validate/scripts/stage.sh):
#   OUT=... validate/scripts/residency_series.sh   -> $OUT/b.jsonl (pretty JSON objects, one per
#   case), $OUT/log.txt, $OUT/smi.csv. Compare with a profile's predictions:
#   tilescope predict with the same flags (see docs/validation change 17 for the figures).
SERIES_FILE=b.jsonl
. "$(dirname "$0")/series_common.sh"
for B in 1 2 3; do m --kernel gemm --m $((704 * B)) --n 768 --k 8192 --tile-m 64 --tile-n 64 --tile-k 32 --stages 3 --warps 8; done
for B in 1 2; do
  m --kernel gemm --m $((704 * B)) --n 1536 --k 8192 --tile-m 64 --tile-n 128 --tile-k 32 --stages 3 --warps 8
  m --kernel gemm --m $((1408 * B)) --n 768 --k 8192 --tile-m 128 --tile-n 64 --tile-k 32 --stages 3 --warps 8
done
m --kernel gemm --m 1408 --n 1536 --k 8192 --tile-m 128 --tile-n 128 --tile-k 32 --stages 3 --warps 8
for B in 1 2 4 6; do m --kernel attention-flash2 --batch 1 --heads $B --seq 4224 --head-dim 64 --tile-m 32 --tile-n 32 --stages 2; done
for B in 1 2 3; do m --kernel attention-flash2 --batch 1 --heads $B --seq 8448 --head-dim 64 --tile-m 64 --tile-n 64 --stages 2; done
for B in 1 4 16 32; do m --kernel softmax --variant online --rows $((132 * B)) --cols 16384 --tile-m 1 --tile-n 256 --warps 1 --stages 1; done
for B in 1 8 16; do m --kernel softmax --variant online --rows $((132 * B)) --cols 16384 --tile-m 1 --tile-n 1024 --warps 4 --stages 1; done
tail -n 5 "$OUT/log.txt"
