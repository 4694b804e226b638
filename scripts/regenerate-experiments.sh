#!/usr/bin/env bash
# Regenerates results/NAME.md, results/NAME.csv and the top-level EXPERIMENTS.md
# from the experiments themselves (EXPERIMENTS.md is never edited by hand).
# Usage: scripts/regenerate-experiments.sh [--with-slow] [BUILD_DIR]
#   --with-slow   also run the slow (training) experiments, one by one
#   BUILD_DIR     where numlab is built (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
with_slow=0
if [ "${1:-}" = "--with-slow" ]; then
  with_slow=1
  shift
fi
build=${1:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target numlab
numlab="$build/numlab"
if [ "$with_slow" = 1 ]; then
  "$numlab" experiment list | awk '$2 == "slow" { print $1 }' | while read -r name; do
    "$numlab" experiment "$name" --out results
  done
fi
# The fast experiments, then EXPERIMENTS.md assembled from every results/NAME.md.
"$numlab" experiment all --out results --experiments-md EXPERIMENTS.md
