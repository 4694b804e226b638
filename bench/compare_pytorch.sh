#!/usr/bin/env bash
# Trains the tutorial conv model (batch 32) and ResNet-8 (batch 128) in fp32
# with numlab (bench/train_bench) and with PyTorch (bench/pytorch_train.py,
# Debian's python3-torch) on the same number of threads, and prints images/s
# and the ratio numlab / PyTorch.
#
# Usage: bench/compare_pytorch.sh [BUILD_DIR] [THREADS]   (defaults: build, 2)
#        PYTHON=/path/to/python3 selects the interpreter that has torch.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build}"
threads="${2:-2}"
# Debian's python3-torch lives under /usr/bin/python3's dist-packages, which a
# pyenv or venv python3 earlier on PATH would not see.
python="${PYTHON:-/usr/bin/python3}"
bench="$build/bench/train_bench"
if [ ! -x "$bench" ]; then
  echo "compare_pytorch: $bench not found; build the train_bench target (Release) first" >&2
  exit 2
fi
if ! "$python" -c "import torch" 2>/dev/null; then
  echo "compare_pytorch: PyTorch is not installed (apt-get install python3-torch)" >&2
  exit 2
fi
numlab_json="$(mktemp)"
trap 'rm -f "$numlab_json"' EXIT
"$bench" --benchmark_filter="/$threads/real_time\$" --benchmark_min_time=5 \
  --benchmark_format=json >"$numlab_json" 2>/dev/null
torch_out="$(OMP_NUM_THREADS="$threads" "$python" "$here/pytorch_train.py" --threads "$threads" --seconds 10)"
python3 - "$numlab_json" "$threads" <<PY
import json, sys
runs = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    batch = 32 if b["name"].startswith("BM_TutorialConv") else 128
    cpu_s = b["cpu_time"] / {"ns": 1e9, "us": 1e6, "ms": 1e3, "s": 1.0}[b["time_unit"]]
    runs[b["name"].split("/")[0]] = (b["images/s"], batch / cpu_s)
torch = {line.split()[0]: tuple(map(float, line.split()[1:])) for line in """$torch_out""".strip().splitlines()}
rows = [("tutorial conv, batch 32", runs["BM_TutorialConvBatch32"], torch["tutorial_conv_b32"]),
        ("ResNet-8, batch 128", runs["BM_ResNet8Batch128"], torch["resnet8_b128"])]
print(f"threads: {sys.argv[2]}  (CPU-time columns: numlab counts its main thread only, so use them with 1 thread)")
print(f"{'model':<26}{'numlab img/s':>14}{'PyTorch img/s':>15}{'ratio':>7}{'numlab cpu':>12}{'PyTorch cpu':>13}{'ratio':>7}")
for name, ours, theirs in rows:
    print(f"{name:<26}{ours[0]:>14.0f}{theirs[0]:>15.0f}{ours[0] / theirs[0]:>7.2f}"
          f"{ours[1]:>12.0f}{theirs[1]:>13.0f}{ours[1] / theirs[1]:>7.2f}")
PY
