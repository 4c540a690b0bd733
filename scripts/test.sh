#!/usr/bin/env bash
# Everything from a fresh machine: install what is missing, configure build/, build, run every
# test (what CI runs). The project is built at -O1. STAX_SANITIZE=address,undefined builds staxc,
# its libraries and every test with AddressSanitizer and UndefinedBehaviorSanitizer (any report
# fails the test; the generated code of the e2e suite is built and run sanitized either way).
# Benchmarks build their own optimized configuration. Extra arguments go to ctest, e.g.
# `scripts/test.sh -R npy` runs the tests matching "npy". Each part's time is printed at the end.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="$(nproc)"
sanitize="${STAX_SANITIZE-}"
if [ -n "$sanitize" ]; then
  # Leaks are reported (LeakSanitizer) and any report aborts the process that made it.
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0}"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
fi

t0=$SECONDS
scripts/setup.sh
t1=$SECONDS
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
  -DSTAX_SANITIZE="$sanitize"
cmake --build build -j"$jobs"
t2=$SECONDS
cd build
status=0
ctest --output-on-failure -j"$jobs" "$@" || status=$?
t3=$SECONDS
echo "test.sh: setup $((t1 - t0)) s, build $((t2 - t1)) s (sanitizers: ${sanitize:-none}), tests $((t3 - t2)) s, total $((t3 - t0)) s"
exit "$status"
