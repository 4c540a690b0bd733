#!/usr/bin/env bash
# Installs, with apt-get, whatever is missing of what staxc needs to build and test. Quiet and
# quick when everything is there; runs `apt-get update` only when something must be installed.
#   scripts/setup.sh           build and test dependencies
#   scripts/setup.sh --bench   also python3-torch and OpenBLAS (its OpenMP build), for the benchmarks
#   scripts/setup.sh --onnx    also python3-torch, torchvision and onnx, for scripts/onnx_check.py
#   scripts/setup.sh --models  those and nodejs, npm, for scripts/models.sh (ONNX Runtime from npm)
# The cross pieces (the aarch64 compiler, qemu-user, SLEEF and libgomp for arm64) build the NEON
# tests and run them under qemu; the arm64 architecture is added to dpkg for them when missing.
# ninja-build builds samples/cmake-app in the install test (test/package); dpkg-dev and file
# let `cpack -G DEB` find the package's dependencies. clang, its sanitizer runtimes and LLVM's
# OpenMP (with Archer) build the ThreadSanitizer test and the fuzzing harnesses (scripts/fuzz.sh).
set -euo pipefail

packages=(g++ cmake make ninja-build libcli11-dev nlohmann-json3-dev libspdlog-dev libgtest-dev libsleef-dev
          libonnx-dev libprotobuf-dev g++-aarch64-linux-gnu qemu-user libsleef-dev:arm64 libgomp1:arm64
          dpkg-dev file clang libclang-rt-dev libomp-dev)

for arg in "$@"; do
  case "$arg" in
    --bench) packages+=(python3-torch libopenblas-openmp-dev) ;;
    --onnx) packages+=(python3-torch python3-torchvision python3-onnx) ;;
    --models)
      packages+=(python3-torch python3-torchvision python3-onnx nodejs time)
      # Debian's npm, unless the installed Node.js brings its own.
      command -v npm >/dev/null || packages+=(npm)
      ;;
    -h|--help)
      sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "setup.sh: unknown option '$arg' (options: --bench, --onnx, --models, --help)" >&2
      exit 2
      ;;
  esac
done

# PACKAGE or PACKAGE:ARCH installed (a package of several architectures is listed once per
# architecture; without :ARCH the native one or an architecture-independent one counts).
native=$(dpkg --print-architecture)
installed() {
  local name=${1%%:*} arch="$native|all"
  [[ "$1" == *:* ]] && arch=${1#*:}
  dpkg-query -W -f='${Architecture} ${Status}\n' "$name" 2>/dev/null | grep -qE "^($arch) install ok installed$"
}

missing=()
for p in "${packages[@]}"; do
  if ! installed "$p"; then
    missing+=("$p")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "setup.sh: missing packages: ${missing[*]}" >&2
  echo "setup.sh: installing them needs root: run 'sudo $0 $*' (or apt-get install them yourself)" >&2
  exit 1
fi

echo "setup.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  dpkg --add-architecture arm64
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
