#!/usr/bin/env bash
# Installs numlab's six Debian packages for real with apt (as root), uses them
# as a user would, then removes them again:
#   - the installed numlab rounds and finds its configs in /usr/share/numlab;
#   - ldconfig knows libnumlab-num.so.SOVERSION and libnumlab-rundb.so.SOVERSION;
#   - python3 imports numlab from /usr/lib/python3/dist-packages and writes a
#     run database, which numlab inspect reads;
#   - numlab-gui renders a screenshot of it (offscreen);
#   - tests/install/consumer builds against /usr through find_package and
#     through pkg-config, with no path given, and runs.
# Not part of ctest: it changes the machine's /usr (tests/install/check_deb.sh
# checks the same packages in a throwaway root, without root). It refuses to
# run where any numlab package is installed already, and purges what it
# installed on exit, whatever happened.
#
#   scripts/test-deb-install.sh [BUILD_DIR]   (default: build; cpack -G DEB ran there)
# The version and soversion to expect come from BUILD_DIR/deb-packages.txt
# (tests/install/deb_packages.sh).
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/.." && pwd)
source "$source_dir/tests/install/deb_packages.sh"
build=$(realpath "${1:-build}")
fail() { echo "test-deb-install: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "test-deb-install: run as root (it installs packages)" >&2; exit 2; }

deb_packages "$build" test-deb-install
for p in "${packages[@]}"; do
  if dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep 'installed' >/dev/null; then
    echo "test-deb-install: $p is installed already; remove it first" >&2; exit 2
  fi
done

work=$(mktemp -d /tmp/numlab-deb-XXXXXX)
installed=0
cleanup() {
  if [ "$installed" = 1 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${packages[@]}" >/dev/null
    echo "test-deb-install: purged ${packages[*]}"
  fi
  rm -rf "$work"
}
trap cleanup EXIT

installed=1
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${debs[@]}" >"$work/apt.log" ||
  { cat "$work/apt.log" >&2; fail "apt-get install failed"; }
for p in "${packages[@]}"; do
  dpkg-query -W -f '${Status}' "$p" | grep 'install ok installed' >/dev/null || fail "$p is not installed"
done
echo "test-deb-install: installed ${packages[*]}"

cd "$work"  # away from the source tree, so nothing is found there by accident
[ "$(command -v numlab)" = /usr/bin/numlab ] || fail "numlab is not /usr/bin/numlab"
numlab round 0.1 --format fp16 --mode ne | grep '0x2e66' >/dev/null || fail "numlab round"
numlab train --config tutorial_conv_fp32 --print-config | grep 'model: tutorial_conv' >/dev/null ||
  fail "numlab does not find /usr/share/numlab/configs"
for library in "libnumlab-num.so.$soversion" "libnumlab-rundb.so.$soversion"; do
  ldconfig -p | grep "$library" >/dev/null || fail "ldconfig does not know $library"
done

/usr/bin/python3 -c "
import numlab, numpy as np
assert numlab.__file__.startswith('/usr/lib/python3/dist-packages/numlab/'), numlab.__file__
assert numlab.encode(np.float32([0.1]), 'fp16')[0] == 0x2E66
with numlab.rundb.RunWriter('$work/python.db') as writer:
    run = writer.begin_run('deb-install')
    for step in range(3):
        writer.add_step(run, step, loss=1.0 / (step + 1))
    writer.finish_run(run)
print('python: numlab', numlab.__version__, 'from', numlab.__file__)
"
numlab inspect "$work/python.db" | grep deb-install >/dev/null || fail "numlab inspect cannot read the Python run"

QT_QPA_PLATFORM=offscreen numlab-gui "$work/python.db" --view overview --screenshot "$work/shot.png" >/dev/null 2>&1 ||
  fail "numlab-gui --screenshot failed"
[ "$(head -c 8 "$work/shot.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] || fail "the screenshot is no PNG"
echo "test-deb-install: numlab-gui rendered $(stat -c %s "$work/shot.png") bytes of PNG"

cmake -S "$source_dir/tests/install/consumer" -B "$work/cmake-build" -G Ninja \
  -DNUMLAB_REQUIRED_VERSION="$version" >/dev/null
cmake --build "$work/cmake-build" >/dev/null
"$work/cmake-build/consumer" "$work/cmake.db"
# Debian's /lib is /usr/lib (merged /usr); ldconfig may name either.
ldd "$work/cmake-build/consumer" | grep -Eq "libnumlab-num.so.$soversion => (/usr)?/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/" ||
  fail "the find_package consumer does not use /usr's libnumlab-num: $(ldd "$work/cmake-build/consumer" | grep numlab)"
cp "$source_dir/tests/install/consumer/main.cpp" "$source_dir/tests/install/consumer/Makefile" "$work/"
make -s -C "$work" consumer-pc
"$work/consumer-pc" "$work/pc.db"
numlab inspect "$work/pc.db" | grep consumer >/dev/null || fail "numlab inspect cannot read the consumer's run"
echo "test-deb-install: the consumer builds against /usr through find_package and pkg-config, and runs"
