# Sourced by the device-call scripts that run the staged `tilescope` (measure_dataset.sh,
# extend_dataset.sh): $OUT made, the staged Boost/CUDA/CUPTI libraries on the library path,
# bundled profiles found, B = the staged binary (validate/scripts/stage.sh).
set -u
OUT=${OUT:-/tmp/tilescope_out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.deps/calib/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export TILESCOPE_PROFILE_DIR="$PWD/profiles"
B=.deps/calib/bin/tilescope
