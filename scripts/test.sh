#!/usr/bin/env bash
# Everything from a fresh machine: install what is missing, configure build/, build, run every
# test. The project is built at -O1: the suite tests correctness, and benchmarks build their
# own optimized configuration. Extra arguments go to ctest, e.g. `scripts/test.sh -R npy` runs the tests matching "npy".
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="$(nproc)"

scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG"
cmake --build build -j"$jobs"
cd build
ctest --output-on-failure -j"$jobs" "$@"
