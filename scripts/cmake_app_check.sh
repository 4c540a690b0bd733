#!/usr/bin/env bash
# staxc as a user's build meets it: installs the build BUILD_DIR into a temporary prefix, then
# for each CMake generator (Ninja, Unix Makefiles) configures samples/cmake-app (copied to a
# temporary folder) against that prefix, builds it, runs it and checks its output; checks that
# a second build regenerates nothing; touches the MLP's weights file and checks that the
# rebuild regenerates that model and not the other one. CTest runs it (test/package).
#
#   scripts/cmake_app_check.sh [BUILD_DIR] [GENERATOR...]   (default: build, Ninja and Unix Makefiles)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
shift || true
generators=("$@")
if [[ ${#generators[@]} -eq 0 ]]; then
  generators=("Unix Makefiles")
  if command -v ninja >/dev/null; then generators=("Ninja" "Unix Makefiles"); fi
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/staxc-cmake-app.XXXXXX")"
trap 'rm -rf "$work"' EXIT
fail() { echo "cmake_app_check: FAILED: $*" >&2; exit 1; }

start=$SECONDS
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }
[[ -x "$work/prefix/bin/staxc" ]] || fail "no bin/staxc in the prefix"
[[ -f "$work/prefix/lib/cmake/staxc/staxcConfig.cmake" ]] || fail "no CMake package in the prefix"
echo "installed into $work/prefix ($((SECONDS - start)) s)"

for gen in "${generators[@]}"; do
  t0=$SECONDS
  app="$work/app-${gen// /-}"
  cp -r "$root/samples/cmake-app" "$app"
  out="$app/build"
  cmake -S "$app" -B "$out" -G "$gen" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release \
    >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "$gen: configure"; }
  cmake --build "$out" >"$work/build1.log" 2>&1 || { cat "$work/build1.log"; fail "$gen: build"; }
  grep -q "staxc: compiling models/mlp.json" "$work/build1.log" || { cat "$work/build1.log"; fail "$gen: mlp not compiled"; }
  grep -q "staxc: compiling models/softmax.json" "$work/build1.log" || fail "$gen: softmax not compiled"
  "$out/app" >"$work/run.log" || { cat "$work/run.log"; fail "$gen: the app failed"; }
  grep -qx "cmake-app: all ok" "$work/run.log" || { cat "$work/run.log"; fail "$gen: unexpected output"; }
  cat "$work/run.log"

  # Nothing changed: nothing regenerated.
  cmake --build "$out" >"$work/build2.log" 2>&1 || fail "$gen: second build"
  if grep -q "staxc: compiling" "$work/build2.log"; then cat "$work/build2.log"; fail "$gen: a no-op build reran staxc"; fi

  # A constant's file changed: that model alone is regenerated, and the app still runs.
  sleep 1  # a later mtime on file systems with one-second timestamps
  touch "$app/models/mlp.weights"
  cmake --build "$out" >"$work/build3.log" 2>&1 || { cat "$work/build3.log"; fail "$gen: rebuild"; }
  grep -q "staxc: compiling models/mlp.json" "$work/build3.log" || { cat "$work/build3.log"; fail "$gen: touching mlp.weights did not regenerate the MLP"; }
  if grep -q "staxc: compiling models/softmax.json" "$work/build3.log"; then fail "$gen: touching mlp.weights regenerated the softmax"; fi
  "$out/app" | grep -qx "cmake-app: all ok" || fail "$gen: the rebuilt app failed"
  echo "$gen: built, ran, rebuilt only the MLP after touching its weights ($((SECONDS - t0)) s)"
  rm -rf "$out"
done
echo "cmake_app_check: passed ($((SECONDS - start)) s)"
