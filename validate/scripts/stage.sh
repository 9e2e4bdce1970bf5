#!/usr/bin/env bash
# Stages what validate's device calls need into .deps/calib/ (git-ignored): the stripped
# `tilescope` of a CUDA build (default build/calib-gpu) and the Boost and CUDA runtime/CUPTI
# libraries it links (the GPU machine has no Boost). Carry ".deps/calib" in the device call.
# For fit_and_validate.sh (CPU only) any build works, e.g. a Release build without CUDA
# (stage.sh build/release); it also needs .deps/calib/shards/ from shard_dataset.py.
set -eu
BUILD=${1:-build/calib-gpu}
mkdir -p .deps/calib/bin .deps/calib/lib
# Re-configure first: the commit recorded in calibrated profiles' provenance is read at configure
# time, and an incremental build would otherwise keep an old one.
cmake "$BUILD" > /dev/null && cmake --build "$BUILD" --target tilescope -j "$(nproc)" > /dev/null
cp "$BUILD/bin/tilescope" .deps/calib/bin/ && strip .deps/calib/bin/tilescope
ldd "$BUILD/bin/tilescope" | awk '/libboost|libcudart|libcupti/ {print $3}' | xargs -r cp -L -t .deps/calib/lib/
du -sh .deps/calib
