#!/usr/bin/env bash
# staxc's own compile time on generated graphs of 100, 1,000 and 10,000 nodes (a benchmark, not
# a test). Each graph repeats a transformer-like block over rows of a [64, 128] tensor: softmax,
# layer norm, a residual add and, every tenth block, a matrix product; every node is a named
# node of the graph. The table gives the scheduler nodes (buffers) and kernels of the schedule,
# and the best of three wall-clock and CPU times of `staxc compile` with and without fusion.
#
#   scripts/bench_compile.sh [BUILD_DIR] [SIZES...]   (default: build-bench, 100 1000 10000)
#
# BUILD_DIR is configured as a Release build when it has no CMakeCache.txt yet.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build-bench}"
shift || true
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(100 1000 10000)
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j2 --target staxc >/dev/null
staxc="$build/tools/staxc"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

generate() {  # generate N FILE
  python3 - "$1" "$2" <<'PY'
import json, sys
n, path = int(sys.argv[1]), sys.argv[2]
nodes = []
def add(name, op, args, **attrs):
    nodes.append(dict(name=name, op=op, args=args, **attrs))
h, k = "x", 0
while len(nodes) < n:
    p = f"b{k}_"
    block = [
        (p + "m", "amax", [h], dict(dim=-1, keepdim=True)),
        (p + "d", "sub", [h, p + "m"], {}),
        (p + "e", "exp", [p + "d"], {}),
        (p + "s", "sum", [p + "e"], dict(dim=-1, keepdim=True)),
        (p + "p", "div", [p + "e", p + "s"], {}),
        (p + "mu", "mean", [p + "p"], dict(dim=-1, keepdim=True)),
        (p + "c", "sub", [p + "p", p + "mu"], {}),
        (p + "c2", "mul", [p + "c", p + "c"], {}),
        (p + "v", "mean", [p + "c2"], dict(dim=-1, keepdim=True)),
        (p + "r", "rsqrt", [p + "v"], {}),
        (p + "n", "mul", [p + "c", p + "r"], {}),
        (p + "g", "mul", [p + "n", "w"], {}),
        (p + "h", "add", [p + "g", h], {}),
    ]
    if k % 10 == 9:
        block.append((p + "mm", "matmul", [p + "h", "W"], {}))
    for name, op, args, attrs in block:
        if len(nodes) == n:
            break
        add(name, op, args, **attrs)
    h = nodes[-1]["name"]
    k += 1
doc = {"format": "stax-graph", "version": 1, "name": "bench",
       "inputs": [{"name": "x", "dtype": "float32", "shape": [64, 128]},
                  {"name": "w", "dtype": "float32", "shape": [128]},
                  {"name": "W", "dtype": "float32", "shape": [128, 128]}],
       "nodes": nodes, "outputs": [h]}
json.dump(doc, open(path, "w"))
PY
}

# best_of_3 ARGS...: "WALL CPU", the least wall-clock and the least CPU (user + system) seconds
# of three runs (on a busy machine CPU time is the steadier figure).
best_of_3() {
  local best_wall="" best_cpu=""
  for _ in 1 2 3; do
    local out wall cpu
    out=$( { TIMEFORMAT="%R %U %S"; time "$staxc" "$@" >/dev/null; } 2>&1 | tail -1)
    wall=$(echo "$out" | awk '{print $1}')
    cpu=$(echo "$out" | awk '{print $2 + $3}')
    if [ -z "$best_wall" ] || [ "$(echo "$wall < $best_wall" | bc -l)" = 1 ]; then best_wall=$wall; fi
    if [ -z "$best_cpu" ] || [ "$(echo "$cpu < $best_cpu" | bc -l)" = 1 ]; then best_cpu=$cpu; fi
  done
  printf "%.3f %.3f" "$best_wall" "$best_cpu"
}

printf "| %6s | %9s | %7s | %9s | %8s | %17s | %16s | %11s |\n" "nodes" "scheduler" "kernels" "wall (s)" "CPU (s)" "--no-fuse wall (s)" "--no-fuse CPU (s)" "CPU us/node"
printf "| %6s | %9s | %7s | %9s | %8s | %17s | %16s | %11s |\n" "---:" "---:" "---:" "---:" "---:" "---:" "---:" "---:"
for n in "${sizes[@]}"; do
  g="$work/g$n.json"
  generate "$n" "$g"
  "$staxc" compile "$g" -o "$work/out.cpp" --dump-schedule "$work/s.json"
  counts=$(python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(sum(len(k['nodes']) for k in s['kernels']), len(s['kernels']))" "$work/s.json")
  read -r sched kernels <<<"$counts"
  read -r fwall fcpu <<<"$(best_of_3 compile "$g" -o "$work/out.cpp")"
  read -r pwall pcpu <<<"$(best_of_3 compile "$g" -o "$work/out.cpp" --no-fuse)"
  per=$(echo "$fcpu * 1000000 / $n" | bc -l)
  printf "| %6d | %9d | %7d | %9s | %8s | %17s | %16s | %11.0f |\n" "$n" "$sched" "$kernels" "$fwall" "$fcpu" "$pwall" "$pcpu" "$per"
done
uptime | sed 's/.*load average/load average while measuring/'
