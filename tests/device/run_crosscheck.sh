#!/usr/bin/env bash
# Builds and runs the GPU cross-check (needs nvcc and an NVIDIA GPU of compute
# capability >= 8.9 for FP8 conversions; sm_90 by default).
# Usage: tests/device/run_crosscheck.sh [OUTDIR] [--quick]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/build-device}
shift || true
mkdir -p "$out"
core=(round_exact arithmetic convert compare codec format text environment rounding_names philox)
srcs=()
for c in "${core[@]}"; do srcs+=("$root/libnum/src/core/$c.cpp"); done
nvcc -O2 -std=c++17 -arch=${CUDA_ARCH:-sm_90} -c "$here/gpu_kernels.cu" -o "$out/gpu_kernels.o"
g++ -O2 -std=c++20 -pthread -I"$root/libnum/include" "$here/crosscheck.cpp" "${srcs[@]}" "$out/gpu_kernels.o" \
    -L/usr/local/cuda/lib64 -lcudart_static -ldl -lrt -o "$out/gpu_crosscheck"
"$out/gpu_crosscheck" "$@"
