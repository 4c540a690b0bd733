#!/usr/bin/env bash
# The model zoo against ONNX Runtime and PyTorch eager: ResNet-18 (batch 1 and 8), MobileNet-V2,
# ResNet-50, a BERT encoder layer and an MLP, each exported from PyTorch (seeded random weights,
# eval mode), imported, compiled, built, run and timed by staxc, and compared with ONNX Runtime
# (npm's onnxruntime-node) and PyTorch eager. Not part of CTest: it installs Debian's torch,
# torchvision, onnx, nodejs and npm (scripts/setup.sh --models), onnxruntime-node from npm into
# the work folder, builds staxc, then runs scripts/models.py, which prints one table.
#   scripts/models.sh [--only REGEX] [--reps N] [--policies default,passive] [--set operators]
# (--set operators: single operators sized beyond the caches instead of the models).
# Environment: BUILD_DIR (default build), MODELS_DIR (default $BUILD_DIR/models). Takes some
# 15 minutes on 2 cores; run nothing else meanwhile, the figures are times.
set -euo pipefail
cd "$(dirname "$0")/.."
for arg in "$@"; do
  if [[ "$arg" == -h || "$arg" == --help ]]; then  # before installing or building anything
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
  fi
done

scripts/setup.sh --models
build=${BUILD_DIR:-build}
work=${MODELS_DIR:-$build/models}
mkdir -p "$work/node"
if [[ ! -d "$work/node/node_modules/onnxruntime-node" ]]; then
  # --ignore-scripts: the package ships its CPU binaries; its install script only fetches GPU ones.
  npm install --prefix "$work/node" --ignore-scripts --no-audit --no-fund onnxruntime-node >&2
fi
if [[ ! -x "$build/tools/staxc" ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >&2
fi
cmake --build "$build" -j2 --target staxc >&2
NODE_PATH="$(cd "$work/node" && pwd)/node_modules" exec /usr/bin/python3 scripts/models.py \
  --staxc "$build/tools/staxc" --work "$work" "$@"
