#!/usr/bin/env bash
# A first look at staxc: install what is missing, build, then check and evaluate a sample model.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" >/dev/null
cmake --build build -j"$(nproc)" --target staxc >/dev/null
staxc="$root/build/tools/staxc"

step() { printf '\n== %s\n' "$*"; }

step "staxc validate samples/softmax.json   (the dtype and shape of every value)"
"$staxc" validate samples/softmax.json

step "staxc interpret samples/softmax.json --output-dir out/demo   (the reference interpreter)"
"$staxc" interpret samples/softmax.json --output-dir out/demo

step "staxc samples/softmax.json -o out/demo/softmax.cpp --header out/demo/softmax.h   (the generated code)"
"$staxc" samples/softmax.json -o out/demo/softmax.cpp --header out/demo/softmax.h
sed -n '1,12p' out/demo/softmax.cpp
echo "..."
grep -n 'softmax_rows_run\|softmax_rows_workspace_size' out/demo/softmax.h | head -5

step "g++ -std=c++17 -O2 -march=native -fopenmp -Wall -Wextra -c out/demo/softmax.cpp   (a standalone translation unit)"
${CXX:-g++} -std=c++17 -O2 -march=native -fopenmp -Wall -Wextra -c out/demo/softmax.cpp -o out/demo/softmax.o
ls -l out/demo/softmax.o

step "staxc run samples/softmax.json --input x=out/demo/inputs/x.npy --output-dir out/demo/run   (build and run it)"
"$staxc" run samples/softmax.json --input x=out/demo/inputs/x.npy --output-dir out/demo/run

step "staxc check samples/softmax.json   (generated code against the interpreter, same inputs)"
"$staxc" check samples/softmax.json

step "done: out/demo/ holds the interpreter's results, out/demo/run/ the generated code's, out/demo/softmax.cpp the code"
