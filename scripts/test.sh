#!/usr/bin/env bash
# Everything from a fresh machine: install what is missing, configure build/, build, run every
# test (what CI runs). The project is built at -O1. STAX_SANITIZE=address,undefined builds staxc,
# its libraries and every test with AddressSanitizer and UndefinedBehaviorSanitizer (any report
# fails the test; the generated code of the e2e suite is built and run sanitized either way).
# Benchmarks build their own optimized configuration. Extra arguments go to ctest, e.g.
# `scripts/test.sh -R npy` runs the tests matching "npy". Each part's time is printed at the end.
# The libraries and tools are unity builds (CMAKE_UNITY_BUILD: a few files per translation unit,
# each header parsed once for them), about a quarter less build time on 2 cores; the tests' own
# files are built one by one (test/CMakeLists.txt).
#
# Then (unless STAX_SANITIZE is already set, or STAX_SANITIZED_STAGE=0, or ctest got arguments)
# the sanitized stage: the tests labelled `input`, of what reads users' input (the graph parser
# and validator, the ONNX importer, the .npy reader, the mutation tests, the npy and ONNX fuzzer
# findings replayed), built again in build-san with AddressSanitizer and
# UndefinedBehaviorSanitizer at -O0 (an instrumented -O1 build compiles two to three times
# slower) and run there. The rest of staxc is sanitized by `STAX_SANITIZE=address,undefined
# scripts/test.sh` and by the fuzzers (scripts/fuzz.sh); the generated code of the e2e suite is
# built sanitized in every run.
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
  -DSTAX_SANITIZE="$sanitize" -DCMAKE_UNITY_BUILD=ON
cmake --build build -j"$jobs"
t2=$SECONDS
cd build
status=0
ctest --output-on-failure -j"$jobs" "$@" || status=$?
t3=$SECONDS
cd "$root"
stage=""
if [ -z "$sanitize" ] && [ "${STAX_SANITIZED_STAGE:-1}" != 0 ] && [ $# -eq 0 ]; then
  targets=(graph_test importer_test stax_support_test robustness_test fuzz_replay_npy fuzz_replay_onnx)
  cmake -S . -B build-san -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O0 -DNDEBUG" \
    -DSTAX_SANITIZE=address,undefined -DCMAKE_UNITY_BUILD=ON >/dev/null
  cmake --build build-san -j"$jobs" --target "${targets[@]}"
  t4=$SECONDS
  # A failed allocation is reported to the caller (what the limits tests check), not fatal.
  (cd build-san &&
    ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=1:detect_stack_use_after_return=0" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    ctest --output-on-failure -j"$jobs" -L input) ||
    status=$?
  t5=$SECONDS
  stage=", sanitized stage: build $((t4 - t3)) s, tests $((t5 - t4)) s"
fi
t6=$SECONDS
echo "test.sh: setup $((t1 - t0)) s, build $((t2 - t1)) s (sanitizers: ${sanitize:-none}), tests $((t3 - t2)) s$stage, total $((t6 - t0)) s"
exit "$status"
