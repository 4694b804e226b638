#!/usr/bin/env bash
# Builds and runs the GPU cross-check (needs nvcc and an NVIDIA GPU of compute
# capability >= 8.9 for FP8 conversions; sm_90 by default) against a built
# libnum: build/libnum/libnumlab-num.a by default, or LIBNUM_LIB (with
# LIBNUM_LINK naming what it needs: MPFR, GMP).
# Usage: tests/device/run_crosscheck.sh [OUTDIR] [--conversions|--arithmetic] [--stride N]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/build-device}
shift || true
mkdir -p "$out"
lib=${LIBNUM_LIB:-$root/build/libnum/libnumlab-num.a}
read -r -a link <<< "${LIBNUM_LINK:--lmpfr -lgmp}"
[[ -f $lib ]] || { echo "run_crosscheck.sh: no libnum at $lib (build numlab first, or set LIBNUM_LIB)" >&2; exit 2; }
nvcc -O2 -std=c++17 -arch="${CUDA_ARCH:-sm_90}" -c "$here/gpu_kernels.cu" -o "$out/gpu_kernels.o"
g++ -O2 -std=c++20 -pthread -fopenmp -I"$root/libnum/include" "$here/crosscheck.cpp" "$out/gpu_kernels.o" \
    "$lib" "${link[@]}" -L/usr/local/cuda/lib64 -lcudart_static -ldl -lrt -o "$out/gpu_crosscheck"
"$out/gpu_crosscheck" "$@"
