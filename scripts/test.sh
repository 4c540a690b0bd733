#!/usr/bin/env bash
# Everything from a fresh machine: install what is missing, configure build/, build, run every
# test. Extra arguments go to ctest, e.g. `scripts/test.sh -R npy` runs the tests matching "npy".
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="$(nproc)"

scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$jobs"
cd build
ctest --output-on-failure -j"$jobs" "$@"
