# Sourced by the Nsight Compute probes (issue_probe.sh, qk_store_probe.sh) after they set OUT:
# $OUT created; B, the staged tilescope of validate/scripts/stage.sh, with its libraries on
# LD_LIBRARY_PATH and the bundled profiles; NCU, the Nsight Compute command line; and
# $OUT/provenance.txt (GPU, driver, clocks, ncu version, date, commit).
mkdir -p "$OUT"
B=.deps/calib/bin/tilescope
export LD_LIBRARY_PATH=$PWD/.deps/calib/lib:${LD_LIBRARY_PATH:-}
export TILESCOPE_PROFILE_DIR=$PWD/profiles
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,clocks.sm --format=csv
  "$NCU" --version; date -u; git log -1 --format=%h 2>/dev/null; } > "$OUT/provenance.txt" 2>&1
