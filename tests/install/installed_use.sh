#!/usr/bin/env bash
# Uses an installed numlab as a user would, from a folder of its own:
# numlab train with a shipped config, numlab experiment list and a fast
# experiment, numlab formats, numlab-gui --help, and import numlab in Python.
# run_consumer.sh runs it with the source and build trees hidden.
# Usage: installed_use.sh PREFIX WORKDIR PYTHONPATH
set -euo pipefail
# A pipeline ends in a plain grep, not grep -q: grep -q exits at its first match,
# and under pipefail the writer's SIGPIPE would fail the check at random.
prefix=$1 work=$2 pythonpath=$3
fail() { echo "installed_use: $*" >&2; exit 1; }
mkdir -p "$work"
cd "$work"
numlab=$prefix/bin/numlab

# A shipped config, found in <prefix>/share/numlab/configs; three steps of it
# on Debian's Fashion-MNIST (dataset-fashion-mnist), traced into a database.
"$numlab" train --config mlp_fp32 --max-steps 3 --test-limit 100 --trace-db "$work/train.db" >"$work/train.log" 2>&1 ||
  fail "numlab train --config mlp_fp32: $(tail -n 3 "$work/train.log")"
grep -q '^test accuracy ' "$work/train.log" || fail "numlab train printed no test accuracy: $(tail -n 3 "$work/train.log")"
"$numlab" inspect "$work/train.db" | grep "^run 1: mlp_fp32 \[finished\]" >/dev/null || fail "numlab inspect: the training run did not finish"

"$numlab" experiment list | grep '^swamping-add ' >/dev/null || fail "numlab experiment list does not list swamping-add"
"$numlab" experiment swamping-add --out "$work/results" >/dev/null || fail "numlab experiment swamping-add"
[ -s "$work/results/swamping-add.md" ] || fail "numlab experiment swamping-add wrote no results/swamping-add.md"

# fp16's largest finite value, 65504, as IEEE 754 defines it.
"$numlab" formats | grep '65504' >/dev/null || fail "numlab formats does not show fp16's 65504"

QT_QPA_PLATFORM=offscreen "$prefix/bin/numlab-gui" --help | grep -- '--screenshot' >/dev/null || fail "numlab-gui --help"

PYTHONPATH=$pythonpath /usr/bin/python3 -c "
import numlab, numpy as np
assert numlab.__file__.startswith('$prefix'), numlab.__file__
assert numlab.encode(np.float32([65504.0]), 'fp16')[0] == 0x7BFF
" || fail "python3 -c 'import numlab' from $pythonpath"
echo "installed_use: train, experiment, formats, numlab-gui --help and import numlab work from $prefix"
