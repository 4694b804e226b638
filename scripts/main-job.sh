#!/usr/bin/env bash
# The main job: reproduce the tutorials' fast experiments and the loss-scaling
# experiment (recorded into a run database), then train the
# tutorial conv model for one epoch of Fashion-MNIST in mixed fp16 (fp32 master
# weights, static loss scale 256) with every op traced into a run database.
# Usage: scripts/main-job.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
mkdir -p results
"$build/numlab" experiment all --out results
# One training experiment at its 2-core size (about a minute): its three runs
# (no, static and dynamic loss scaling) go into results/loss-scaling.db.
"$build/numlab" experiment loss-scaling --out results
db=results/tutorial_conv_fp16_mixed.db
rm -f "$db" "$db-wal" "$db-shm"
"$build/numlab" train --config tutorial_conv_fp16_mixed --epochs 1 --trace-db "$db" --trace-every 50
cat <<MSG

Tables: results/*.md and results/*.csv (all of them, with the tutorials' values: EXPERIMENTS.md)
Run databases:
  $db  (the traced epoch)
  results/loss-scaling.db  (the loss-scaling experiment's three runs; every training
    experiment writes one: $build/numlab experiment NAME, names in: $build/numlab experiment list)
  summary:  $build/numlab inspect $db    (one run of several: --run ID)
  viewer:   $build/numlab-gui $db
MSG
