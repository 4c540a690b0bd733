#!/usr/bin/env bash
# The runtime's convolution against im2col + OpenBLAS (bench/conv_bench.cpp) on ResNet-18's
# convolutions at batch 1 (and some pointwise ones of ResNet-50 and MobileNet-V2; then
# MobileNet-V2's depthwise layers, the channels in the lanes against the loops over planes): builds the
# benchmark for this machine (-march=native), then runs it on 1 and BENCH_THREADS threads, once
# with libgomp's default OMP_WAIT_POLICY and once with OMP_WAIT_POLICY=passive. OpenBLAS is its OpenMP build, which `scripts/setup.sh --bench`
# installs; BENCH_OPENBLAS_CORETYPE sets its OPENBLAS_CORETYPE (SkylakeX for AVX-512 on a CPU
# newer than the release).
#
#   scripts/bench_conv.sh [conv_bench options...]   (e.g. --only layer4 --check, --cold)
#   env: BENCH_THREADS (default 2), CXX (default g++)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
threads="${BENCH_THREADS:-2}"
blas_inc=/usr/include/x86_64-linux-gnu/openblas-openmp
blas_lib=/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0
# The rpath makes the loader take this OpenMP build: by the soname alone Debian's alternatives
# give the pthreads one, whose spinning threads would share the cores with libgomp's.
blas_link=("$blas_lib" -Wl,-rpath,"$(dirname "$blas_lib")")
if [ ! -f "$blas_inc/cblas.h" ] || [ ! -f "$blas_lib" ]; then
  echo "bench_conv.sh: OpenBLAS (OpenMP build) is missing: run scripts/setup.sh --bench" >&2
  exit 1
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "building bench/conv_bench.cpp" >&2
${CXX:-g++} -std=c++17 -O2 -march=native -fopenmp -I"$root/lib/codegen/runtime" -I"$blas_inc" \
  "$root/bench/conv_bench.cpp" "${blas_link[@]}" -lsleef -o "$work/conv_bench"
core="${BENCH_OPENBLAS_CORETYPE:-}"
for policy in default passive; do
  echo
  if [ "$policy" = default ]; then
    env -u OMP_WAIT_POLICY ${core:+OPENBLAS_CORETYPE=$core} "$work/conv_bench" --threads "1,$threads" "$@"
  else
    env OMP_WAIT_POLICY=passive ${core:+OPENBLAS_CORETYPE=$core} "$work/conv_bench" --threads "1,$threads" "$@"
  fi
done
