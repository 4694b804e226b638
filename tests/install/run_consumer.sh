#!/usr/bin/env bash
# Installs the build tree BUILD into a temporary prefix, then builds the
# consumer project against it twice (find_package and pkg-config), runs both,
# and imports the installed Python package; then uses the installed programs
# as a user would, with the source tree and BUILD hidden (installed_use.sh),
# and checks that every installed program has its man page. Usage: run_consumer.sh BUILD VERSION
# (VERSION: the project version BUILD was configured with, which the consumer asks for)
set -euo pipefail
build=$(cd "$1" && pwd)
version=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(find "$prefix" -name 'libnumlab-num.so' -printf '%h\n' | head -n 1)
[ -n "$libdir" ] || { echo "run_consumer: libnumlab-num.so was not installed" >&2; exit 1; }
export LD_LIBRARY_PATH=$libdir

cmake -S "$here/consumer" -B "$work/cmake-build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DNUMLAB_REQUIRED_VERSION="$version" >/dev/null
cmake --build "$work/cmake-build" >/dev/null
"$work/cmake-build/consumer" "$work/cmake.db"

cp "$here/consumer/main.cpp" "$here/consumer/Makefile" "$work/"
PKG_CONFIG_PATH=$libdir/pkgconfig make -s -C "$work" consumer-pc
"$work/consumer-pc" "$work/pc.db"

"$prefix/bin/numlab" inspect "$work/pc.db" | grep consumer >/dev/null

# The installed numlab finds its configs in <prefix>/share/numlab/configs, from
# any working directory: a config that exists only there loads, and a missing
# one names that folder first.
configs=$prefix/share/numlab/configs
[ -f "$configs/tutorial_conv_fp32.yml" ] || { echo "run_consumer: the configs were not installed" >&2; exit 1; }
cp "$configs/tutorial_conv_fp32.yml" "$configs/only_installed.yml"
(cd "$work" && "$prefix/bin/numlab" train --config only_installed --print-config) | grep 'model: tutorial_conv' >/dev/null
if message=$(cd "$work" && "$prefix/bin/numlab" train --config no_such_config --print-config 2>&1); then
  echo "run_consumer: a missing config was accepted" >&2; exit 1
fi
case $message in
  *"configs/no_such_config.yml, $configs/no_such_config.yml"*) ;;
  *) echo "run_consumer: the missing config's message does not name $configs first: $message" >&2; exit 1 ;;
esac
pydir=$(find "$prefix" -path '*-packages/numlab/__init__.py' -printf '%h\n' | head -n 1)
[ -n "$pydir" ] || { echo "run_consumer: the Python package was not installed" >&2; exit 1; }
PYTHONPATH=$(dirname "$pydir") /usr/bin/python3 -c \
  "import numlab, numpy as np; assert numlab.encode(np.float32([0.1]), 'fp16')[0] == 0x2E66; print('python: numlab', numlab.__version__)"

# Every installed program has a man page, named for it (numlab's subcommands
# have theirs, numlab-train(1) ...), that man renders without a warning.
for program in "$prefix"/bin/*; do
  page=$prefix/share/man/man1/$(basename "$program").1.gz
  [ -f "$page" ] || { echo "run_consumer: $(basename "$program") has no man page ($page)" >&2; exit 1; }
done
for page in "$prefix"/share/man/man1/*.1.gz; do
  warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
  [ -z "$warnings" ] || { echo "run_consumer: man warns on $page: $warnings" >&2; exit 1; }
done
[ -f "$prefix/share/man/man1/numlab-train.1.gz" ] || { echo "run_consumer: numlab-train(1) is missing" >&2; exit 1; }

# The installed programs need nothing of the tree they were built from. Where
# user namespaces allow (Debian's default), the source tree and BUILD are
# covered by empty folders while they run, so that a path into either fails.
source_tree=$(cd "$here/../.." && pwd)
cp "$here/installed_use.sh" "$work/"  # run from outside the trees it hides
check=(bash "$work/installed_use.sh" "$prefix" "$work/use" "$(dirname "$pydir")")
if unshare --map-root-user --mount true 2>/dev/null; then
  unshare --map-root-user --mount bash -c '
    source_tree=$1 build=$2; shift 2
    mount -t tmpfs numlab-hidden "$source_tree"
    case $build in "$source_tree"/*) ;; *) mount -t tmpfs numlab-hidden "$build" ;; esac
    [ -z "$(ls -A "$source_tree")" ] || { echo "run_consumer: the source tree is not hidden" >&2; exit 1; }
    exec "$@"' _ "$source_tree" "$build" "${check[@]}"
else
  echo "run_consumer: note: no user namespaces here; the installed programs run with the source tree in view"
  "${check[@]}"
fi
