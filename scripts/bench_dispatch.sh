#!/usr/bin/env bash
# The per-call cost of --isa dispatch's run-time choice (bench/dispatch_cost.cpp): a tiny model
# generated pinned to the set the dispatching file picks on this machine and with --isa
# dispatch, both built into one program and called alternately on one thread.
#   scripts/bench_dispatch.sh [BUILD_DIR]   (default: build-bench)
#   env: CALLS (per round, default 2000000), ROUNDS (default 11)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build-bench}"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j2 --target staxc >/dev/null
staxc="$build/tools/staxc"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat > "$work/tiny.json" <<'JSON'
{"format": "stax-graph", "version": 1, "name": "tiny",
 "inputs": [{"name": "x", "dtype": "float32", "shape": [16]}],
 "nodes": [{"name": "y", "op": "add", "args": ["x", 1.0]}],
 "outputs": ["y"]}
JSON
"$staxc" compile "$work/tiny.json" --isa dispatch --name tiny_dispatch -o "$work/tiny_dispatch.cpp"
# The set the dispatching file chooses here: ask it.
cat > "$work/which.cpp" <<'CPP'
#include "tiny_dispatch.cpp"
#include <cstdio>
int main() { std::puts(tiny_dispatch_isa()); }
CPP
g++ -std=c++17 -O2 -fopenmp -I "$work" "$work/which.cpp" -o "$work/which" -lsleef
isa="$("$work/which")"
"$staxc" compile "$work/tiny.json" --isa "$isa" --name tiny_fixed -o "$work/tiny_fixed.cpp"
# One program with both files, built with the pinned set's flags (the dispatching file needs
# none, and they do not change what its choice costs).
flags=$(sed -n "s/^STAX_ISA([A-Za-z0-9]*, \"$isa\", \"[a-z0-9_]*\", [0-9]*, [0-9]*, \"[A-Za-z0-9]*\", \"[^\"]*\", \"\([^\"]*\)\".*/\1/p" \
        "$root/include/stax/support/isa.def")
g++ -std=c++17 -O2 -fopenmp $flags -I "$work" "$root/bench/dispatch_cost.cpp" -o "$work/dispatch_cost" -lsleef
OMP_NUM_THREADS=1 "$work/dispatch_cost" "${CALLS:-2000000}" "${ROUNDS:-11}"
