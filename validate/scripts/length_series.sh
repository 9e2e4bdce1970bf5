#!/usr/bin/env bash
# Length series (docs/validation/README.md, thirty-fifth session): FlashAttention-2's time against
# its number of K/V iterations, with nothing else changing. Each grid is one wave on an H100 SXM
# (4 query tiles per head, 33 x B heads, B = the tile's blocks per SM: 132 x B blocks, every SM
# holds exactly B from start to end) and seq_kv = Bc x n for n = 1, 2, 4, ..., 128 iterations,
# for all nine tiles of the kernel menu at d = 64 and d = 128 (fp16, 2 stages, Br/16 warps); and
# the same for the GEMM kernel's four tiles of the data set (8 warps, 3 stages): 11B x 12 tiles of
# C, K = 32 x n for n = 1, 2, 4, ..., 256 k-iterations.
# The slope is what one more iteration costs and the intercept what a block costs besides its
# iterations (launch, prologue, epilogue), which the data set's sweeps mix (the number of
# iterations, the L2's reuse and the tail change together there).
# Usage (device call, repo root, .deps/calib carried from validate/scripts/stage.sh):
#   OUT=... validate/scripts/length_series.sh   -> $OUT/length.jsonl (one measured case per line,
#   what `tilescope validate --measurements` reads), $OUT/log.txt, $OUT/smi.csv. Compare with a
#   profile: validate/scripts/length_series.py on a `validate --split all --format json` report.
SERIES_FILE=length.jsonl
. "$(dirname "$0")/series_common.sh"
# d Br Bc blocks-per-SM (the H100's occupancy for the compiled kernels, as the data set records)
while read -r d br bc b; do
  for n in 1 2 4 8 16 32 64 128; do
    m --kernel attention-flash2 --batch 1 --heads $((33 * b)) --seq $((4 * br)) --seq-kv $((bc * n)) \
      --head-dim "$d" --tile-m "$br" --tile-n "$bc" --stages 2
  done
done <<'TILES'
64 32 32 6
64 32 64 6
64 32 128 3
64 64 32 3
64 64 64 3
64 64 128 2
64 128 32 2
64 128 64 1
64 128 128 1
128 32 32 4
128 32 64 3
128 32 128 1
128 64 32 3
128 64 64 2
128 64 128 1
128 128 32 1
128 128 64 1
128 128 128 1
TILES
# tile M, tile N, blocks per SM (as the data set records)
while read -r tm tn b; do
  for n in 1 2 4 8 16 32 64 128 256; do
    m --kernel gemm --m $((tm * 11 * b)) --n $((tn * 12)) --k $((32 * n)) --tile-m "$tm" --tile-n "$tn" --tile-k 32 \
      --stages 3 --warps 8
  done
done <<'TILES'
64 64 3
64 128 2
128 64 2
128 128 1
TILES
# measure --format json writes each case as a pretty-printed object: one line each, as JSON Lines.
python3 - "$OUT/$SERIES_FILE" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
decoder, at, cases = json.JSONDecoder(), 0, []
while True:
    while at < len(text) and text[at].isspace():
        at += 1
    if at == len(text):
        break
    case, at = decoder.raw_decode(text, at)
    cases.append(json.dumps(case))
open(sys.argv[1], "w").write("".join(c + "\n" for c in cases))
PY
tail -n 5 "$OUT/log.txt"
