#!/usr/bin/env bash
# The main job: reproduce the tutorials' fast experiments, then train the
# tutorial conv model for one epoch of Fashion-MNIST in mixed fp16 (fp32 master
# weights, static loss scale 256) with every op traced into a run database.
# Usage: scripts/main-job.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
mkdir -p results
"$build/numlab" experiment all --out results
db=results/tutorial_conv_fp16_mixed.db
rm -f "$db" "$db-wal" "$db-shm"
"$build/numlab" train --config tutorial_conv_fp16_mixed --epochs 1 --trace-db "$db" --trace-every 50
cat <<MSG

Tables: results/*.md and results/*.csv (all of them, with the tutorials' values: EXPERIMENTS.md)
Run database: $db
  summary:  $build/numlab inspect $db
  viewer:   $build/numlab-gui $db
MSG
