#!/usr/bin/env bash
# The memory-bound benchmark suite (samples/bench/*.json, inputs well beyond the last-level
# cache) in one table, every figure measured in the same run:
#   - staxc (default options) on T threads, and on 1 thread;
#   - staxc --no-fuse and staxc --isa scalar ("n/a" while staxc lacks the flag);
#   - PyTorch eager running the same graph op by op (bench/torch_eager.py; "n/a" without torch,
#     which `scripts/setup.sh --bench` installs);
#   - a STREAM triad measured by this script (bench/stream_triad.cpp, 3 x 128 MiB), before and
#     after the suite; every bandwidth is also given as a fraction of its mean.
# Times are medians of BENCH_REPS calls after warm-up, with buffers allocated once. Bandwidth is
# each graph's minimum traffic (inputs read once, outputs written once) over the median time.
# The last columns take instead the traffic of the kernels staxc schedules (`traffic` of
# --dump-schedule: every kernel's reads and writes, so a value the schedule stores and reads again
# counts twice): how close the kernels run to the bandwidth on what they do move.
# Everything runs twice: with libgomp's default OMP_WAIT_POLICY (idle workers spin, which on a
# 2-vCPU VM can cost milliseconds when a spinning worker holds the core another thread needs)
# and with OMP_WAIT_POLICY=passive.
#
#   scripts/bench.sh [BUILD_DIR] [MODEL.json...]   (default: build-bench, samples/bench/*.json)
#   env: BENCH_THREADS (default 2), BENCH_REPS (10), BENCH_MIB (STREAM array size, 128)
#
# BUILD_DIR is configured as a Release build when it has no CMakeCache.txt yet.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build-bench}"
shift || true
models=("$@")
[ ${#models[@]} -eq 0 ] && models=("$root"/samples/bench/*.json)
threads="${BENCH_THREADS:-2}"
reps="${BENCH_REPS:-10}"
mib="${BENCH_MIB:-128}"
policies=(default passive)

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j2 --target staxc >/dev/null
staxc="$build/tools/staxc"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# staxc's temporary build folders go here too, out of reach of anything that cleans /tmp/staxc-*.
mkdir -p "$work/tmp"
export TMPDIR="$work/tmp"

with_policy() {  # with_policy POLICY COMMAND...: COMMAND with that OMP_WAIT_POLICY ("default": unset)
  local policy="$1"
  shift
  if [ "$policy" = default ]; then env -u OMP_WAIT_POLICY "$@"; else env OMP_WAIT_POLICY="$policy" "$@"; fi
}

echo "building bench/stream_triad.cpp" >&2
${CXX:-g++} -O3 -march=native -fopenmp -o "$work/stream_triad" "$root/bench/stream_triad.cpp"
stream() {  # stream TAG: the triad under each policy
  for p in "${policies[@]}"; do
    with_policy "$p" "$work/stream_triad" --mib "$mib" --threads "$threads" --json >"$work/stream.$1.$p.json"
  done
}

measure() {  # measure OUT COMMAND...: COMMAND's output into OUT; a failure is reported and leaves "n/a"
  local out="$1"
  shift
  if ! "$@" >"$out"; then
    echo "bench.sh: failed: $*" >&2
    rm -f "$out"
  fi
}

has_flag() { "$staxc" bench --help 2>/dev/null | grep -q -- "$1"; }
variants=(staxc)
has_flag --no-fuse && variants+=(nofuse)
has_flag --isa && variants+=(scalar)
torch=0
# Debian's python3-torch lives in the system interpreter, which another python3 on PATH may hide.
torch_python=python3
for py in python3 /usr/bin/python3; do
  if "$py" -c "import torch" 2>/dev/null; then torch=1; torch_python="$py"; break; fi
done

stream before
policy_list="$(IFS=,; echo "${policies[*]}")"
for m in "${models[@]}"; do
  name="$(basename "$m" .json)"
  echo "benchmarking $name" >&2
  "$staxc" "$m" -o /dev/null --dump-schedule "$work/$name.schedule.json"
  measure "$work/$name.staxc.json" "$staxc" bench "$m" --threads "1,$threads" --omp-wait-policy "$policy_list" \
    --reps "$reps" --json
  for v in "${variants[@]}"; do
    case "$v" in
      nofuse) flags=(--no-fuse) ;;
      scalar) flags=(--isa scalar) ;;
      *) continue ;;
    esac
    measure "$work/$name.$v.json" "$staxc" bench "$m" "${flags[@]}" --threads "$threads" \
      --omp-wait-policy "$policy_list" --reps "$reps" --json
  done
  if [ "$torch" = 1 ]; then
    for p in "${policies[@]}"; do
      measure "$work/$name.torch.$p.json" with_policy "$p" "$torch_python" "$root/bench/torch_eager.py" "$m" \
        --threads "$threads" --reps "$reps" --json
    done
  fi
done
stream after

python3 - "$work" "$threads" "$reps" "${policies[@]}" -- "${models[@]}" <<'PY'
import glob, json, math, os, statistics, subprocess, sys

work, threads, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sep = sys.argv.index("--")
policies, models = sys.argv[4:sep], [os.path.basename(m)[:-5] for m in sys.argv[sep + 1:]]

def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None

def staxc_run(name, variant, policy, nthreads):
    r = load(f"{work}/{name}.{variant}.json")
    if r is None:
        return None, None
    for run in r["runs"]:
        if run["wait_policy"] == policy and run["threads"] == nthreads:
            return run, r
    return None, r

def cpu_name():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        info = dict(l.split(":", 1) for l in out.splitlines() if ":" in l)
        return f"{info.get('Model name', '?').strip()}, {info.get('CPU(s)', '?').strip()} CPUs, L3 {info.get('L3 cache', '?').strip()}"
    except OSError:
        return "?"

def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None

def cell(x, fmt, width):
    return (fmt % x).rjust(width) if x is not None else "n/a".rjust(width)

print(f"staxc benchmark suite: {len(models)} graphs, {threads} threads (and 1), median of {reps} calls; {cpu_name()}")
for policy in policies:
    tri = [load(f"{work}/stream.{t}.{policy}.json") for t in ("before", "after")]
    tri = [t for t in tri if t]
    ref = statistics.mean(t["triad_gbs"] for t in tri) if tri else None
    label = "libgomp default" if policy == "default" else policy
    print()
    print(f"== OMP_WAIT_POLICY={policy} ({label})")
    if tri:
        print("STREAM triad, %d threads: %s GB/s (3 arrays; before, after the suite; reference = mean %.2f);"
              " 4 arrays with the write-allocate read %s; non-temporal stores %s" % (
                  tri[0]["threads"], " / ".join("%.2f" % t["triad_gbs"] for t in tri), ref,
                  " / ".join("%.2f" % t["triad_wa_gbs"] for t in tri),
                  " / ".join("%.2f" % t["triad_nt_gbs"] for t in tri)))
    cols = [("staxc", "staxc", threads), ("staxc 1T", "staxc", 1), ("--no-fuse", "nofuse", threads),
            ("--isa scalar", "scalar", threads), ("torch eager", "torch", threads)]
    head = f"{'benchmark':<18}{'MiB':>7} |" + "".join(f"{c[0]:>23} |" for c in cols) + f"{'torch/staxc':>12} |"
    print(head + f"{'scheduled':>13}")
    print(f"{'':<18}{'':>7} |" + "".join(f"{'ms':>8}{'GB/s':>7}{'%tri':>6}  |" for _ in cols) + f"{'':>12} |" +
          f"{'MiB':>7}{'%tri':>6}")
    scheduled_fractions = []
    fractions = {c[0]: [] for c in cols}
    ratios, overhead = [], []
    for name in models:
        base, rep = staxc_run(name, "staxc", policy, threads)
        traffic = rep["min_traffic_bytes"] if rep else None
        line = f"{name:<18}" + cell(traffic / 2**20 if traffic else None, "%.0f", 7) + " |"
        times = {}
        for title, variant, nt in cols:
            ms = None
            if variant == "torch":
                t = load(f"{work}/{name}.torch.{policy}.json")
                ms = t["median_ms"] if t else None
            else:
                run, _ = staxc_run(name, variant, policy, nt)
                ms = run["median_ms"] if run else None
                if run and variant == "staxc" and nt == threads:
                    overhead.append((run["tiny_call_ns"], run["tiny_loop_ns"]))
            gbs = traffic / (ms * 1e-3) / 1e9 if ms and traffic else None
            frac = gbs / ref if gbs and ref else None
            times[title] = ms
            if frac:
                fractions[title].append(frac)
            line += cell(ms, "%.2f", 8) + cell(gbs, "%.2f", 7) + cell(frac * 100 if frac else None, "%.0f%%", 6) + "  |"
        ratio = times["torch eager"] / times["staxc"] if times.get("torch eager") and times.get("staxc") else None
        if ratio:
            ratios.append(ratio)
        line += cell(ratio, "%.2fx", 12) + " |"
        sched = load(f"{work}/{name}.schedule.json")
        sched = sched["traffic"]["total"] if sched else None
        frac = sched / (times["staxc"] * 1e-3) / 1e9 / ref if sched and times.get("staxc") and ref else None
        if frac:
            scheduled_fractions.append(frac)
        line += cell(sched / 2**20 if sched else None, "%.0f", 7) + cell(frac * 100 if frac else None, "%.0f%%", 6)
        print(line)
    line = f"{'geomean':<18}{'':>7} |"
    for title, _, _ in cols:
        g = geomean(fractions[title])
        line += f"{'':>15}" + cell(g * 100 if g else None, "%.0f%%", 6) + "  |"
    g = geomean(ratios)
    line += cell(g, "%.2fx", 12) + " |"
    g = geomean(scheduled_fractions)
    print(line + f"{'':>7}" + cell(g * 100 if g else None, "%.0f%%", 6))
    if overhead:
        call = statistics.median(o[0] for o in overhead)
        loop = statistics.median(o[1] for o in overhead)
        print(f"wrapper on float32[64, 128] (y = x + 1), {threads} threads: {call / 1000:.2f} us per call of the "
              f"generated NAME_run, {loop / 1000:.2f} us as a plain loop (medians over the suite's runs)")
PY

# Then the matrix products (scripts/bench_gemm.sh: square, MLP with its epilogues, transformer
# linears, M = 1 and 16 against 4096 x 4096, batched), staxc against OpenBLAS, when OpenBLAS is
# installed (scripts/setup.sh --bench); BENCH_GEMM=0 skips them.
if [ "${BENCH_GEMM:-1}" != 0 ]; then
  echo
  BENCH_BUILD="$build" "$root/scripts/bench_gemm.sh" --check || echo "bench.sh: the GEMM table needs OpenBLAS (scripts/setup.sh --bench)" >&2
fi
