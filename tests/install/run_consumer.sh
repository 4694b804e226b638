#!/usr/bin/env bash
# Installs the build tree BUILD into a temporary prefix, then builds the
# consumer project against it twice (find_package and pkg-config), runs both,
# and imports the installed Python package. Usage: run_consumer.sh BUILD
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(find "$prefix" -name 'libnumlab-num.so' -printf '%h\n' | head -n 1)
[ -n "$libdir" ] || { echo "run_consumer: libnumlab-num.so was not installed" >&2; exit 1; }
export LD_LIBRARY_PATH=$libdir

cmake -S "$here/consumer" -B "$work/cmake-build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake-build" >/dev/null
"$work/cmake-build/consumer" "$work/cmake.db"

cp "$here/consumer/main.cpp" "$here/consumer/Makefile" "$work/"
PKG_CONFIG_PATH=$libdir/pkgconfig make -s -C "$work" consumer-pc
"$work/consumer-pc" "$work/pc.db"

"$prefix/bin/numlab" inspect "$work/pc.db" | grep -q consumer
pydir=$(find "$prefix" -path '*-packages/numlab/__init__.py' -printf '%h\n' | head -n 1)
[ -n "$pydir" ] || { echo "run_consumer: the Python package was not installed" >&2; exit 1; }
PYTHONPATH=$(dirname "$pydir") /usr/bin/python3 -c \
  "import numlab, numpy as np; assert numlab.encode(np.float32([0.1]), 'fp16')[0] == 0x2E66; print('python: numlab', numlab.__version__)"
