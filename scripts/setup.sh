#!/usr/bin/env bash
# Installs, with apt-get, whatever is missing of what staxc needs to build and test. Quiet and
# quick when everything is there; runs `apt-get update` only when something must be installed.
#   scripts/setup.sh           build and test dependencies
#   scripts/setup.sh --bench   also python3-torch and OpenBLAS (its OpenMP build), for the benchmarks
set -euo pipefail

packages=(g++ cmake make libcli11-dev nlohmann-json3-dev libspdlog-dev libgtest-dev libsleef-dev)

for arg in "$@"; do
  case "$arg" in
    --bench) packages+=(python3-torch libopenblas-openmp-dev) ;;
    -h|--help)
      sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "setup.sh: unknown option '$arg' (options: --bench, --help)" >&2
      exit 2
      ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
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
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
