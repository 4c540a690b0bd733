#!/usr/bin/env bash
# Regenerates the pictures of docs/build.md (docs/img/): the schedule and memory plan of
# examples 7.1 and 7.2 and of the transformer block sample, drawn by staxc (--svg-schedule,
# --svg-memory). With --png, also renders each to PNG beside it with headless Chromium (to look
# at them; the PNGs are not committed).
#
#   scripts/make_pictures.sh [BUILD_DIR] [--png]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build"
png=0
for arg in "$@"; do
  case "$arg" in
    --png) png=1 ;;
    *) build="$arg" ;;
  esac
done
staxc="$build/tools/staxc"
img="$root/docs/img"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$img"

draw() {  # NAME MODEL [OPTIONS...]
  local name=$1 model=$2
  shift 2
  "$staxc" "$root/$model" -o "$tmp/$name.cpp" --isa scalar "$@" \
    --svg-schedule "$img/$name.schedule.svg" --svg-memory "$img/$name.memory.svg"
}
draw example_7_1 samples/example_7_1.json --fusion-rules chapter
draw example_7_2.chapter samples/example_7_2.json --fusion-rules chapter
draw example_7_2 samples/example_7_2.json
draw transformer_block samples/transformer/transformer_block.json
ls "$img"

if [[ $png -eq 1 ]]; then
  browser="$(command -v chromium || command -v chromium-browser || true)"
  [[ -n "$browser" ]] || { echo "make_pictures.sh: --png needs chromium (apt-get install chromium)" >&2; exit 1; }
  for svg in "$img"/*.svg; do
    # The page is the picture at its own size.
    size=$(sed -n 's/.*<svg [^>]*width="\([0-9.]*\)" height="\([0-9.]*\)".*/\1,\2/p' "$svg" | head -1)
    w=${size%,*}; h=${size#*,}
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1 \
      --window-size="${w%.*},${h%.*}" --screenshot="${svg%.svg}.png" "file://$svg" >/dev/null 2>&1
    echo "rendered ${svg%.svg}.png (${w%.*} x ${h%.*})"
  done
fi
