#!/usr/bin/env bash
# Checks a numlab .deb (cpack -G DEB in a build configured with
# -DCMAKE_INSTALL_PREFIX=/usr) without touching the machine's own /usr:
#   1. its control fields, and that apt can resolve its Depends from Debian's
#      archive (apt-get --simulate: nothing is installed);
#   2. dpkg unpacks it for real into a throwaway root with its own package
#      database (dpkg --root; --unpack runs no maintainer script, the
#      postinst only calls ldconfig), and lists every file as numlab's;
#   3. the unpacked tree works: every shared library resolves, numlab runs and
#      finds its configs in <root>/usr/share/numlab/configs, numlab inspect
#      reads a database, and the Python package imports and rounds.
# Usage: check_deb.sh PACKAGE.deb
set -euo pipefail
deb=$(realpath "$1")
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
fail() { echo "check_deb: $*" >&2; exit 1; }

info=$(dpkg-deb --info "$deb")
for field in "Package: numlab" "Architecture: amd64" "python3-numpy" "libsqlite3-0"; do
  grep -q "$field" <<<"$info" || fail "control lacks '$field'"
done
apt-get install --simulate --no-install-recommends "$deb" | grep -q '^Inst numlab ' ||
  fail "apt cannot resolve the dependencies"

mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
# Debian's own packages are not in the throwaway database: their absence is not the package's fault.
dpkg --root="$root" --force-depends --unpack "$deb" >/dev/null
dpkg --root="$root" -L numlab | grep -q '^/usr/bin/numlab$' || fail "dpkg does not list /usr/bin/numlab"

lib=$root/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)
export LD_LIBRARY_PATH=$lib
for binary in "$root/usr/bin/numlab" "$root/usr/bin/numlab-gui" "$lib/libnumlab-num.so.0.1" \
              "$root"/usr/lib/python3/dist-packages/numlab/_core*.so; do
  if ldd "$binary" | grep -q 'not found'; then fail "$binary: $(ldd "$binary" | grep 'not found')"; fi
done
cd "$root"
"$root/usr/bin/numlab" train --config tutorial_conv_fp32 --print-config | grep -q 'model: tutorial_conv' ||
  fail "numlab does not find its installed configs"
"$root/usr/bin/numlab" round 0.1 --format fp16 --mode ne | grep -q '0x2e66' || fail "numlab round"
PYTHONPATH=$root/usr/lib/python3/dist-packages /usr/bin/python3 -c "
import numlab, numpy as np
assert numlab.__file__.startswith('$root'), numlab.__file__
assert numlab.encode(np.float32([0.1]), 'fp16')[0] == 0x2E66
elements, scales, _ = numlab.quantize(np.float32([1.0, 0.5, 3.0]), 'mxfp8')
assert elements.tolist() == [0x70, 0x68, 0x7C] and scales.tolist() == [120]
with numlab.rundb.RunWriter('$root/check.db') as writer:
    writer.finish_run(writer.begin_run('deb-check'))
print('python: numlab', numlab.__version__, 'from', numlab.__file__)
"
"$root/usr/bin/numlab" inspect "$root/check.db" | grep -q deb-check || fail "numlab inspect cannot read the database"
echo "check_deb: $(basename "$deb") unpacks, resolves and runs"
