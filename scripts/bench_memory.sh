#!/usr/bin/env bash
# Memory planning figures (§7.5): for every sample (samples/*.json and samples/bench/*.json), M*
# (Definition 7.5) of the chosen order, the workspace arena and their ratio, with the sum of the
# intermediates the arena replaces (fields of --dump-memory, docs/cli.md); then the
# generated MLP's measured peak resident memory during one call, against the sum of its
# intermediates and its arena -- for the sample as it is and for the same block at a size where
# the pages show (x 4096 x 256, hidden 1024).
#
# Usage: scripts/bench_memory.sh [BUILD_DIR]   (default: build; staxc is built there if missing)
# Needs: a C++ compiler ($CXX, default g++) with OpenMP, SLEEF, jq, Linux /proc (peak RSS).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
cxx="${CXX:-g++}"
staxc="$build/tools/staxc"
if [[ ! -x "$staxc" ]]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j2 --target staxc >/dev/null
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== arena against M* per sample (bytes; peak: the planned peak, an in-place pair counted once)"
printf '%-24s %10s %10s %10s %10s %8s %s\n' sample "M*" arena peak sum arena/M* order
for sample in "$root"/samples/*.json "$root"/samples/bench/*.json; do
  name="$(basename "$sample" .json)"
  [[ "$(dirname "$sample")" == */bench ]] && name="bench/$name"
  file="$work/${name//\//_}"
  "$staxc" compile "$sample" -o "$file.cpp" --dump-memory "$file.memory.json"
  jq -r --arg n "$name" '[$n, .m_star, .arena.size, .planned_peak, .sum_intermediates, .order.chosen] | @tsv' \
    "$file.memory.json" |
    awk -F'\t' '{ ratio = $2 == 0 ? "-" : sprintf("%.3f", $3 / $2)
                  printf "%-24s %10s %10s %10s %10s %8s %s\n", $1, $2, $3, $4, $5, ratio, $6 }'
done

# The harness: inputs and outputs allocated and touched first, and one warm-up call (the code's
# pages and OpenMP's start-up are then not counted); then the peak RSS is reset
# (/proc/self/clear_refs, "5") and one call runs with the workspace NULL (the call allocates
# it) and, separately, with a caller workspace (the call should allocate nothing).
cat > "$work/harness.cpp" <<'CPP'
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>
#include MODEL_HEADER

static long status_kb(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::atol(line.c_str() + std::strlen(key));
  return -1;
}
static void reset_peak() { std::ofstream("/proc/self/clear_refs") << "5"; }
static std::size_t bytes_of(int dtype, int ndim, const int64_t* shape) {
  std::size_t n = 1;
  for (int d = 0; d < ndim; ++d) n *= static_cast<std::size_t>(shape[d]);
  const std::size_t sizes[] = {4, 8, 4, 8, 1};  // float32 float64 int32 int64 bool
  return n * sizes[dtype];
}
static void* touched(std::size_t n) {
  void* p = std::aligned_alloc(64, (n + 63) / 64 * 64 + 64);
  std::memset(p, 0, (n + 63) / 64 * 64 + 64);
  return p;
}

int main(int argc, char** argv) {
  const bool caller = argc > 1 && std::strcmp(argv[1], "caller") == 0;
  std::vector<const void*> in;
  std::vector<void*> out;
  for (int i = 0; i < MODEL(num_inputs)(); ++i)
    in.push_back(touched(bytes_of(MODEL(input_dtype)(i), MODEL(input_ndim)(i), MODEL(input_shape)(i))));
  for (int i = 0; i < MODEL(num_outputs)(); ++i)
    out.push_back(touched(bytes_of(MODEL(output_dtype)(i), MODEL(output_ndim)(i), MODEL(output_shape)(i))));
  void* ws = caller && MODEL(workspace_size)() > 0 ? touched(MODEL(workspace_size)()) : nullptr;
  if (MODEL(run)(in.data(), out.data(), ws) != 0) return 1;
  reset_peak();
  const long before = status_kb("VmRSS:");
  const int rc = MODEL(run)(in.data(), out.data(), ws);
  const long peak = status_kb("VmHWM:");
  std::printf("%d %zu %ld\n", rc, MODEL(workspace_size)(), peak - before);
  return rc;
}
CPP

measure() {  # measure NAME MODEL.json
  local name="$1" model="$2"
  "$staxc" compile "$model" -o "$work/$name.cpp" --header "$work/$name.h" --name "$name" \
    --dump-memory "$work/$name.memory.json"
  "$cxx" -std=c++17 -O2 -march=native -fopenmp -I"$work" -DMODEL_HEADER="\"$name.h\"" \
    "-DMODEL(f)=${name}_##f" -o "$work/$name.exe" "$work/harness.cpp" "$work/$name.cpp" -lsleef
  local sum arena mstar
  sum="$(jq .sum_intermediates "$work/$name.memory.json")"
  arena="$(jq .arena.size "$work/$name.memory.json")"
  mstar="$(jq .m_star "$work/$name.memory.json")"
  read -r rc_self ws self_kb < <(OMP_NUM_THREADS=1 "$work/$name.exe" self)
  read -r rc_caller _ caller_kb < <(OMP_NUM_THREADS=1 "$work/$name.exe" caller)
  printf '%-10s intermediates %10s B  M* %10s B  arena %10s B  workspace %10s B\n' "$name" "$sum" "$mstar" "$arena" "$ws"
  printf '%-10s peak RSS growth during one call: %8s kB (workspace NULL), %8s kB (caller workspace); status %s %s\n' \
    "$name" "$self_kb" "$caller_kb" "$rc_self" "$rc_caller"
}

echo
echo "== generated MLP: peak resident memory of one call (1 thread)"
measure mlp "$root/samples/mlp.json"
cat > "$work/mlp_large.json" <<'JSON'
{
  "format": "stax-graph", "version": 1, "name": "mlp_large",
  "inputs": [ {"name": "x", "dtype": "float32", "shape": [4096, 256]} ],
  "constants": [
    {"name": "w1", "dtype": "float32", "shape": [1024, 256], "fill": 0.01},
    {"name": "b1", "dtype": "float32", "shape": [1024], "fill": 0.1},
    {"name": "w2", "dtype": "float32", "shape": [256, 1024], "fill": 0.01},
    {"name": "b2", "dtype": "float32", "shape": [256], "fill": 0.0}
  ],
  "nodes": [
    {"name": "h", "op": "linear", "args": ["x", "w1", "b1"]},
    {"name": "a", "op": "gelu", "args": ["h"]},
    {"name": "y", "op": "linear", "args": ["a", "w2", "b2"]}
  ],
  "outputs": ["y"]
}
JSON
measure mlp_large "$work/mlp_large.json"
