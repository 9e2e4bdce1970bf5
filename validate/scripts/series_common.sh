# Sourced by the measured series scripts (residency_series.sh, tail_series.sh) after they set
# SERIES_FILE: $OUT set up, nvidia-smi recorded in $OUT/smi.csv, and m ARGS... appending one
# `tilescope measure --format json --repeats 10 ARGS...` object to $OUT/$SERIES_FILE (its stderr
# and the command line go to $OUT/log.txt). Uses the staged binary of validate/scripts/stage.sh.
set -u
OUT=${OUT:-/tmp/tilescope_out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.deps/calib/lib:${LD_LIBRARY_PATH:-}
T=${TILESCOPE:-.deps/calib/bin/tilescope}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/smi.csv"
m() { echo "== $*" >> "$OUT/log.txt"; "$T" measure --format json --repeats 10 "$@" >> "$OUT/$SERIES_FILE" 2>> "$OUT/log.txt"; echo >> "$OUT/$SERIES_FILE"; }
