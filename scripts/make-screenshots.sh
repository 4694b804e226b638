#!/usr/bin/env bash
# Remakes the README's viewer screenshots (docs/screenshots/) from fresh runs:
# synthetic databases (rundb-synth), short traced runs of the tutorial conv
# model (numlab train), the loss-scaling experiment's database, and the
# PyTorch AMP example's recording (needs torch and the Python module built:
# NUMLAB_BUILD_PYTHON=ON; skipped with a note when torch is missing). Each
# picture is `numlab-gui --screenshot` at 1280x800, off-screen.
#
#   scripts/make-screenshots.sh [-b BUILD_DIR] [-w WORK_DIR]
#
# About 20 minutes of training on 2 busy cores. The before/after pictures of
# session 7's Scales fixes (scales-*-before.png, scales-mxfp8-after.png) are
# not remade here.
set -euo pipefail
build=build work=
while getopts b:w: opt; do
  case $opt in
    b) build=$OPTARG ;;
    w) work=$OPTARG ;;
    *) echo "usage: $0 [-b BUILD_DIR] [-w WORK_DIR]" >&2; exit 2 ;;
  esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
shots=$root/docs/screenshots
if [ -z "$work" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
cd "$work"
export QT_QPA_PLATFORM=offscreen
shot() { "$build/numlab-gui" --screenshot "$shots/$1" "${@:2}"; }

rm -f synthetic.db scaled.db real.db compare.db nvfp4.db sweep.db
"$build/rundb-synth" synthetic.db --steps 3000 --layers 6 --runs 2
"$build/rundb-synth" sweep.db --runs 24 --steps 2000 --layers 2 --stats-every 1000 \
  --coordinate precision=fp16-mixed,bf16,fp8 --coordinate seed=1,2,3,4,5,6,7,8
"$build/rundb-synth" scaled.db --steps 3000 --layers 6 --stats-every 10 --scale-stats fp8-tensor --amax-history 16
shot problems.png --view problems synthetic.db
shot scales.png --view scales --layer layer2 --role grad_weight --step 1500 scaled.db
shot compare.png --view comparison --group-by precision sweep.db

# numlab train finds configs/NAME.yml from the source tree.
cd "$root"
"$build/numlab" train --config tutorial_conv_fp16_mixed --max-steps 60 --trace-every 5 --trace-db "$work/real.db"
"$build/numlab" train --config tutorial_conv_nvfp4 --max-steps 6 --trace-db "$work/nvfp4.db"
"$build/numlab" train --config tutorial_conv_fp16_mixed --max-steps 300 --trace-db "$work/compare.db"
"$build/numlab" train --config tutorial_conv_fp16 --max-steps 300 --trace-db "$work/compare.db"
"$build/numlab" experiment loss-scaling --out "$work/experiment"
cd "$work"
shot real-histograms.png --view histograms real.db
shot real-overview.png --view overview real.db
shot real-swamping.png --view swamping real.db
shot comparison.png --view overview --run 1,2 compare.db
shot scales-nvfp4-after.png --view scales --layer conv2 --role activation nvfp4.db
shot real-map.png --view map --metric underflow --role grad_input --run 1 experiment/loss-scaling.db

if PYTHONPATH="$build/python" python3 -c "import torch, numlab.torch" 2> /dev/null; then
  rm -f amp.db
  PYTHONPATH="$build/python" python3 "$root/examples/pytorch_amp_recipe.py" --db amp.db
  shot pytorch-amp-activations.png --view histograms --role activation --step 140 amp.db
else
  echo "make-screenshots: no torch or no numlab Python module in $build/python; pytorch-amp-activations.png not remade" >&2
fi
echo "make-screenshots: pictures in $shots"
