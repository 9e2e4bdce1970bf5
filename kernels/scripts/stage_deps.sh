#!/usr/bin/env bash
# Stages what a device call needs into .deps/ (git-ignored): stripped binaries from build/gpu
# and the Boost shared libraries the CLI links (the GPU machine has no Boost).
set -eu
mkdir -p .deps/bin .deps/lib
for b in test_kernels tilescope-kernel-bench tilescope; do
  if [ -f "build/gpu/bin/$b" ]; then cp "build/gpu/bin/$b" .deps/bin/ && strip .deps/bin/$b; fi
done
cp -L /usr/lib/x86_64-linux-gnu/libboost_json.so.1.81.0 /usr/lib/x86_64-linux-gnu/libboost_program_options.so.1.81.0 .deps/lib/ 2>/dev/null || true
# CTest files of the gpu build (paths inside point at /work/main/build/gpu/bin, recreated there)
rm -rf .deps/ctest && mkdir -p .deps/ctest
(cd build/gpu && find . -name CTestTestfile.cmake -exec cp --parents {} ../../.deps/ctest/ \;)
[ -d profiles ] && rm -rf .deps/profiles && cp -r profiles .deps/profiles
du -sh .deps
