#!/usr/bin/env bash
# A first look at staxc: install what is missing, build, then check and evaluate a sample model.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target staxc >/dev/null
staxc="$root/build/tools/staxc"

step() { printf '\n== %s\n' "$*"; }

step "staxc validate samples/softmax.json   (the dtype and shape of every value)"
"$staxc" validate samples/softmax.json

step "staxc interpret samples/softmax.json --output-dir out/demo   (the reference interpreter)"
"$staxc" interpret samples/softmax.json --output-dir out/demo

# ---- Compile the model, build the generated code and run it: goes here. ----

step "done: the results are in out/demo/ (NAME.npy per output, inputs/NAME.npy per input)"
