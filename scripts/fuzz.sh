#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer (clang, -fsanitize=fuzzer,address,undefined):
#   scripts/fuzz.sh [SECONDS] [HARNESS...]
# runs each harness (frontend: JSON to generated code in process; npy: the .npy reader; onnx: the
# ONNX importer; default all three, one after the other) for SECONDS (default 3600) under nice,
# in build-fuzz/ (configured and built here with clang). Corpora live in build-fuzz/corpus/NAME and
# grow from run to run; they are seeded with the samples, the test graphs, 200 random graphs, and
# the .npy files and ONNX models fuzz_seeds writes. A finding is written to build-fuzz/findings/
# (replay it with `build-fuzz/test/robustness/fuzz_NAME FILE`); once fixed, copy it to
# test/robustness/fuzz/regressions/NAME/, which ctest replays. The summary gives each harness's
# corpus size, executions, coverage and findings; the exit status is 1 when anything was found.
# FUZZ_JOBS=N runs N processes per harness (libFuzzer -fork); FUZZ_BUILD=DIR picks the build folder.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
seconds="${1:-3600}"
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: SECONDS must be a number, got '$seconds'" >&2; exit 2; }
shift || true
harnesses=("$@")
[[ ${#harnesses[@]} -gt 0 ]] || harnesses=(frontend npy onnx)
build="${FUZZ_BUILD:-build-fuzz}"
jobs="${FUZZ_JOBS:-1}"

scripts/setup.sh
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O1 -g -DNDEBUG" -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link" \
  -DSTAX_SANITIZE=address,undefined -DSTAX_FUZZ=ON >/dev/null
targets=(fuzz_seeds randgraph_dump)
for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
nice cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"

seeds="$build/seeds"
rm -rf "$seeds" && mkdir -p "$seeds/frontend" "$build/findings" "$build/logs"
"$build/test/robustness/fuzz_seeds" "$seeds/npy" "$seeds/onnx"
cp samples/*.json test/cli/data/*.json test/graph/all_ops.json "$seeds/frontend/"
for s in $(seq 0 199); do "$build/test/randgraph/randgraph_dump" "$s" -o "$seeds/frontend/rg_$s.json"; done
cp test/robustness/fuzz/json.dict "$build/json.dict"
sed -n 's/^STAX_OP([A-Za-z0-9]*, *"\([a-z_0-9]*\)".*/"\\"\1\\""/p' include/stax/graph/ops.def >>"$build/json.dict"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
status=0
summary=()
for h in "${harnesses[@]}"; do
  corpus="$build/corpus/$h"
  mkdir -p "$corpus"
  args=(-max_total_time="$seconds" -timeout=60 -rss_limit_mb=4096 -print_final_stats=1
        -artifact_prefix="$build/findings/$h-")
  # The dictionary is JSON's; graphs longer than the samples add little but time.
  [[ "$h" != frontend ]] || args+=(-dict="$build/json.dict" -max_len=8192)
  [[ "$jobs" -le 1 ]] || args+=(-fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  before=$(ls "$build/findings" | grep -c "^$h-" || true)
  echo "fuzz.sh: $h for ${seconds}s (log: $build/logs/$h.log)"
  nice "$build/test/robustness/fuzz_$h" "${args[@]}" "$corpus" "$seeds/$h" >"$build/logs/$h.log" 2>&1 || true
  after=$(ls "$build/findings" | grep -c "^$h-" || true)
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build/logs/$h.log" | tail -1 | grep -o '[0-9]*$' || echo "?")
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$build/logs/$h.log" | tail -1 || echo "cov: ?")
  summary+=("$h: corpus $(ls "$corpus" | wc -l) files, ${execs:-?} executions, $cov, $((after - before)) new findings")
  [[ $after -eq $before ]] || status=1
done
printf 'fuzz.sh: %s\n' "${summary[@]}"
ls "$build/findings" | sed 's/^/fuzz.sh: finding /' || true
exit "$status"
