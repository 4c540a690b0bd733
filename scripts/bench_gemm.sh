#!/usr/bin/env bash
# The runtime's GEMM against OpenBLAS (bench/gemm_bench.cpp): builds the benchmark for this
# machine (-march=native, so the widest instruction set it has; and pinned to AVX2 when it has
# AVX-512 too), then runs it on 1 and BENCH_THREADS threads, once with libgomp's default
# OMP_WAIT_POLICY and once with OMP_WAIT_POLICY=passive. OpenBLAS is its OpenMP build, which
# `scripts/setup.sh --bench` installs. Against the native build it runs the kernels it picks for
# this CPU, or those of BENCH_OPENBLAS_CORETYPE (its OPENBLAS_CORETYPE: SkylakeX for AVX-512,
# which a release older than the CPU may not pick by itself); against the AVX2 build, its
# Haswell kernels (AVX2 and FMA too).
#
# The MLP row runs the code staxc generates for bench/mlp.json (both GEMMs with their epilogues)
# against OpenBLAS plus separate pointwise loops; the next row the code of bench/mlp_const.json,
# the same MLP with its weights and biases constants of the graph (random, written here to
# mlp_weights.bin, which OpenBLAS's side reads too). staxc is built in BENCH_BUILD (build-bench).
#
#   scripts/bench_gemm.sh [gemm_bench options...]   (e.g. --only M=16 --seconds 1)
#   env: BENCH_THREADS (default 2), CXX (default g++), BENCH_BUILD (default build-bench)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
threads="${BENCH_THREADS:-2}"
blas_inc=/usr/include/x86_64-linux-gnu/openblas-openmp
blas_lib=/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0
# The rpath makes the loader take this OpenMP build: by the soname alone Debian's alternatives
# give the pthreads one, whose spinning threads would share the cores with libgomp's.
blas_link=("$blas_lib" -Wl,-rpath,"$(dirname "$blas_lib")")
if [ ! -f "$blas_inc/cblas.h" ] || [ ! -f "$blas_lib" ]; then
  echo "bench_gemm.sh: OpenBLAS (OpenMP build) is missing: run scripts/setup.sh --bench" >&2
  exit 1
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

build_dir="${BENCH_BUILD:-$root/build-bench}"
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build_dir" -j2 --target staxc >/dev/null
"$build_dir/tools/staxc" "$root/bench/mlp.json" -o "$work/mlp.cpp" --name bench_mlp
# W1 [1024, 4096], b1 [4096], W2 [4096, 1024], b2 [1024] as raw float32, uniform in [-0.05, 0.05].
python3 - "$work/mlp_weights.bin" <<'PY'
import array, random, sys
random.seed(7)
n = 1024 * 4096 * 2 + 4096 + 1024
array.array("f", (random.uniform(-0.05, 0.05) for _ in range(n))).tofile(open(sys.argv[1], "wb"))
PY
cp "$root/bench/mlp_const.json" "$work/"
"$build_dir/tools/staxc" "$work/mlp_const.json" -o "$work/mlp_const.cpp" --name bench_mlp_const

build() {  # build OUT FLAGS...: the benchmark, as generated code is built (-O2)
  local out="$1"
  shift
  ${CXX:-g++} -std=c++17 -O2 "$@" -fopenmp -c "$work/mlp.cpp" -o "$work/mlp.o"
  ${CXX:-g++} -std=c++17 -O2 "$@" -fopenmp -c "$work/mlp_const.cpp" -o "$work/mlp_const.o"
  ${CXX:-g++} -std=c++17 -O2 "$@" -fopenmp -DSTAX_BENCH_MLP -DSTAX_BENCH_MLP_WEIGHTS="\"$work/mlp_weights.bin\"" \
    -I"$root/lib/codegen/runtime" -I"$blas_inc" \
    "$root/bench/gemm_bench.cpp" "$work/mlp.o" "$work/mlp_const.o" "${blas_link[@]}" -lsleef -o "$out"
}
echo "building bench/gemm_bench.cpp" >&2
build "$work/gemm_bench" -march=native
variants=(gemm_bench)
if grep -q avx512f /proc/cpuinfo 2>/dev/null; then
  build "$work/gemm_bench_avx2" -march=native -DSTAX_ISA_AVX2
  variants+=(gemm_bench_avx2)
fi

for v in "${variants[@]}"; do
  core="${BENCH_OPENBLAS_CORETYPE:-}"
  [ "$v" = gemm_bench_avx2 ] && core=Haswell
  for policy in default passive; do
    echo
    if [ "$policy" = default ]; then
      env -u OMP_WAIT_POLICY ${core:+OPENBLAS_CORETYPE=$core} "$work/$v" --threads "1,$threads" "$@"
    else
      env OMP_WAIT_POLICY=passive ${core:+OPENBLAS_CORETYPE=$core} "$work/$v" --threads "1,$threads" "$@"
    fi
  done
done

# PyTorch eager on the same shapes, when installed (scripts/setup.sh --bench). Debian's
# python3-torch lives in the system interpreter, which another python3 on PATH may hide.
torch_python=""
for py in python3 /usr/bin/python3; do
  if "$py" -c "import torch" 2>/dev/null; then torch_python="$py"; break; fi
done
if [ -n "$torch_python" ]; then
  for policy in default passive; do
    echo
    if [ "$policy" = default ]; then env -u OMP_WAIT_POLICY "$torch_python" "$root/bench/torch_gemm.py" --threads "1,$threads"
    else OMP_WAIT_POLICY=passive "$torch_python" "$root/bench/torch_gemm.py" --threads "1,$threads"; fi
  done
else
  echo "bench_gemm.sh: no PyTorch column (python3-torch: scripts/setup.sh --bench)" >&2
fi
