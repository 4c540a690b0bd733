#!/usr/bin/env bash
# Regenerates every golden file from the current build: test/golden (the fusion logs and
# schedules of examples 7.1 and 7.2; under code/, the generated .cpp and .h of every sample and
# the kernel plans), and test/lowering/golden (the lowered IR of every sample). Then shows what
# changed. Review the diff before committing it: golden files are never edited by hand.
#
#   scripts/update_golden.sh [BUILD_DIR]     (default: build)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug >/dev/null
fi
cmake --build "$build" -j2 --target scheduler_golden_test lowering_golden_test stax_codegen_golden_test staxc >/dev/null
STAX_UPDATE_GOLDEN=1 "$build/test/scheduler/scheduler_golden_test" --gtest_filter='Examples/Golden.*' | grep '^updated' || true
STAX_UPDATE_GOLDEN=1 "$build/test/lowering/lowering_golden_test" | grep -i 'updated\|wrote' || true
STAX_UPDATE_GOLDEN=1 "$build/test/codegen/stax_codegen_golden_test" | grep '^updated' | wc -l | sed 's/$/ generated-code files written/'
git -C "$root" status --short -- test/golden test/lowering/golden
git -C "$root" --no-pager diff --stat -- test/golden test/lowering/golden
