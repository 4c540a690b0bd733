#!/usr/bin/env bash
# Random graphs at scale through the generated code and the reference interpreter:
#   scripts/randgraph.sh --count N [--first SEED] [--isa LIST] [--batch B] [--out DIR]
#                        [--max-nodes N] [--max-numel N] [--zero-divisors] [--no-shrink] [--conv]
# checks seeds SEED .. SEED + N - 1 (default from 0) of test/randgraph's generator at each
# instruction set of LIST (default `all`: every set this machine runs, and dispatch), B graphs
# (default 100) per generated program. A failing graph is shrunk (delta debugging over nodes,
# then shapes) and written to DIR (default randgraph-failures/) as rg_SEED.ISA.json with the
# original and a repro script. Builds staxc's tools in build-randgraph/ (optimized: the run is
# long) unless RANDGRAPH_BUILD names another build folder. Exit status 1 when a graph failed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="${RANDGRAPH_BUILD:-build-randgraph}"

scripts/setup.sh
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target randgraph_check staxc >/dev/null
export PATH="$root/$build/tools:$PATH"   # the repro commands name staxc
exec "$build/test/randgraph/randgraph_check" "$@"
