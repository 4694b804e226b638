#!/usr/bin/env bash
# Builds numlab's Python module for this machine's python3 (the one that holds
# PyTorch with CUDA) from an already built libnum and rundb, then runs
# torch_recorder_check.py: numlab.torch.Recorder on a real CUDA fp16 autocast
# + GradScaler run. Needs g++ with C++20, pybind11 and Python's headers.
# Usage: tests/device/run_torch_recorder.sh OUTDIR
#   NUMLAB_LIBS: a folder holding libnumlab-num.a, libnumlab-num-diagnostics.a
#                and libnumlab-rundb.a (default: taken from build/)
#   NUMLAB_LINK: what they need (default "-lmpfr -lgmp -lsqlite3")
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: run_torch_recorder.sh OUTDIR}
if [[ -n ${NUMLAB_LIBS:-} ]]; then
  libs=("$NUMLAB_LIBS/libnumlab-num-diagnostics.a" "$NUMLAB_LIBS/libnumlab-num.a" "$NUMLAB_LIBS/libnumlab-rundb.a")
else
  libs=("$root/build/libnum/libnumlab-num-diagnostics.a" "$root/build/libnum/libnumlab-num.a"
        "$root/build/rundb/libnumlab-rundb.a")
fi
for lib in "${libs[@]}"; do
  [[ -f $lib ]] || { echo "run_torch_recorder.sh: no $lib (build numlab first, or set NUMLAB_LIBS)" >&2; exit 2; }
done
read -r -a link <<< "${NUMLAB_LINK:--lmpfr -lgmp -lsqlite3}"
mkdir -p "$out/numlab"
cp "$root"/python/numlab/*.py "$out/numlab/"
py_include=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
# pip's pybind11 names its headers; Debian's pybind11-dev puts them in /usr/include.
pybind11_include=$(python3 -c 'import pybind11; print(pybind11.get_include())' 2>/dev/null || echo /usr/include)
suffix=$(python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
g++ -O2 -std=c++20 -shared -fPIC -fopenmp -I"$root/libnum/include" -I"$root/rundb/include" -I"$py_include" \
    -I"$pybind11_include" -DNUMLAB_VERSION='"device"' "$root"/python/src/*.cpp "${libs[@]}" "${link[@]}" \
    -o "$out/numlab/_core$suffix"
PYTHONPATH="$out" python3 "$here/torch_recorder_check.py" "$out/recorded.db"
