#!/usr/bin/env bash
# Times staxc on graphs of growing size (scripts/scale_graph.py) with --time-passes and prints
# one table: nodes, kernels, then the CPU seconds of each stage, the CPU and wall totals and the
# peak memory. CPU time is what a machine of its own would take as wall time; on a shared one,
# wall time also counts the waits for a core.
#
#   scripts/time_passes.sh [BUILD_DIR] [NODES...]   (default: build, 1000 3000 10000 30000 100000)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
shift || true
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(1000 3000 10000 30000 100000)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

stages=(load "expand composites" lower schedule "plan locals" "plan memory" "plan kernels" emit write)
printf '| nodes | kernels |'
for s in "${stages[@]}"; do printf ' %s |' "$s"; done
printf ' total CPU (s) | total wall (s) | peak memory |\n|'
for _ in $(seq $(( ${#stages[@]} + 5 ))); do printf ' ---: |'; done
printf '\n'
for n in "${sizes[@]}"; do
  python3 "$root/scripts/scale_graph.py" "$n" > "$tmp/g.json"
  "$build/tools/staxc" "$tmp/g.json" -o "$tmp/g.cpp" --isa scalar --time-passes --dump-schedule "$tmp/s.json" 2> "$tmp/t.txt"
  kernels=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['kernels']))" "$tmp/s.json")
  printf '| %s | %s |' "$n" "$kernels"
  for s in "${stages[@]}"; do
    printf ' %s |' "$(awk -v s="$s" '{ name=$0; sub(/^ *[0-9.]+ +[0-9.]+ +[0-9.]+% +[0-9.]+ MiB   /, "", name); if (name == s) print $1 }' "$tmp/t.txt")"
  done
  cpu=$(awk '/   total$/ { print $1 }' "$tmp/t.txt")
  wall=$(awk '/   total$/ { print $2 }' "$tmp/t.txt")
  peak=$(awk '/   total$/ { print $4 " " $5 }' "$tmp/t.txt")
  printf ' %s | %s | %s |\n' "$cpu" "$wall" "$peak"
done
