#!/usr/bin/env bash
# Checks numlab's Debian packages (cpack -G DEB in a build configured with
# -DCMAKE_INSTALL_PREFIX=/usr: cmake/package.cmake) without touching the
# machine's own /usr:
#   1. each package's control fields: its name, section, what it holds and
#      depends on (the runtime libraries named for their SONAME, with shlibs
#      files; libnumlab-dev on their exact version), and that apt can resolve
#      the whole set from Debian's archive (apt-get --simulate: nothing is
#      installed);
#   2. dpkg unpacks them for real into a throwaway root with its own package
#      database (dpkg --root; --unpack runs no maintainer script), and lists
#      each file under its package;
#   3. the unpacked tree works: every shared library resolves, numlab runs and
#      finds its configs in <root>/usr/share/numlab/configs, numlab inspect
#      reads a database, and the Python package imports and rounds.
# scripts/test-deb-install.sh installs the same packages for real (as root).
# Usage: check_deb.sh BUILD   (the build folder where cpack -G DEB ran; its
# deb-packages.txt says which version and soversion to expect)
set -euo pipefail
source "$(dirname "$0")/deb_packages.sh"
build=$(realpath "$1")
deb_packages "$build" check_deb
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
fail() { echo "check_deb: $*" >&2; exit 1; }
num=${packages[0]}
rundb=${packages[1]}
deb_of() { for d in "${debs[@]}"; do [[ $(basename "$d") == "$1"_* ]] && echo "$d"; done; }
field() { dpkg-deb --field "$(deb_of "$1")" "$2"; }
expect_field() {  # PACKAGE FIELD TEXT: the field contains TEXT
  grep -qF -- "$3" <<<"$(field "$1" "$2")" || fail "$1: $2 lacks '$3' ($(field "$1" "$2"))"
}
holds() {  # PACKAGE PATH: the package holds PATH (a file or a link)
  dpkg-deb --contents "$(deb_of "$1")" | awk '{print $6}' | grep -x "./${2#/}" >/dev/null || fail "$1 does not hold $2"
}
lacks() {  # PACKAGE PATTERN: no path of the package matches PATTERN
  if dpkg-deb --contents "$(deb_of "$1")" | awk '{print $6}' | grep -- "$2" >/dev/null; then fail "$1 holds $2"; fi
}

multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
lib=/usr/lib/$multiarch
for p in "${packages[@]}"; do
  [ "$(field "$p" Package)" = "$p" ] || fail "$p: Package is $(field "$p" Package)"
  [ "$(field "$p" Version)" = "$version" ] || fail "$p: version $(field "$p" Version), numlab's $version"
  expect_field "$p" Architecture amd64
done

# The runtime libraries: SONAME file and link only, section libs, a shlibs
# file naming the package (Debian Policy 8.6), ldconfig run on install by
# dpkg's trigger (Policy 8.1.1).
for pair in "num:$num" "rundb:$rundb"; do
  name=${pair%%:*} p=${pair#*:}
  expect_field "$p" Section libs
  holds "$p" "$lib/libnumlab-$name.so.$soversion"
  lacks "$p" "\.so$"
  lacks "$p" "/include/"
  shlibs=$(dpkg-deb --ctrl-tarfile "$(deb_of "$p")" | tar -xO ./shlibs)
  [ "$shlibs" = "libnumlab-$name $soversion $p (= $version)" ] || fail "$p: shlibs is '$shlibs'"
  triggers=$(dpkg-deb --ctrl-tarfile "$(deb_of "$p")" | tar -xO ./triggers)
  [ "$triggers" = "activate-noawait ldconfig" ] || fail "$p: triggers is '$triggers'"
done
expect_field "$num" Depends libmpfr6
expect_field "$rundb" Depends libsqlite3-0

expect_field libnumlab-dev Section libdevel
expect_field libnumlab-dev Depends "$num (= $version)"
expect_field libnumlab-dev Depends "$rundb (= $version)"
expect_field libnumlab-dev Depends libsqlite3-dev
for path in /usr/include/libnum/libnum.hpp /usr/include/rundb/writer.hpp "$lib/libnumlab-num.so" \
            "$lib/libnumlab-num.a" "$lib/libnumlab-rundb.a" "$lib/cmake/numlab/numlabConfig.cmake" \
            "$lib/pkgconfig/numlab.pc"; do
  holds libnumlab-dev "$path"
done
lacks libnumlab-dev "\.so\.$soversion"

holds numlab /usr/bin/numlab
holds numlab /usr/share/numlab/configs/tutorial_conv_fp32.yml
expect_field numlab Depends libyaml-cpp
lacks numlab "^./usr/lib/"
holds numlab-gui /usr/bin/numlab-gui
# Man pages (Debian Policy 12.1), gzip'd, with the program: numlab's and one per subcommand.
holds numlab /usr/share/man/man1/numlab.1.gz
holds numlab /usr/share/man/man1/numlab-train.1.gz
holds numlab /usr/share/man/man1/numlab-sweep.1.gz
holds numlab-gui /usr/share/man/man1/numlab-gui.1.gz
expect_field numlab-gui Depends libqt6widgets6
expect_field python3-numlab Section python
expect_field python3-numlab Depends python3-numpy
holds python3-numlab /usr/lib/python3/dist-packages/numlab/__init__.py

simulation=$(apt-get install --simulate --no-install-recommends "${debs[@]}")
for p in "${packages[@]}"; do
  grep -q "^Inst $p " <<<"$simulation" || fail "apt cannot resolve the dependencies of $p"
done

mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
# Debian's own packages are not in the throwaway database: their absence is not the packages' fault.
dpkg --root="$root" --force-depends --unpack "${debs[@]}" >/dev/null
dpkg --root="$root" -L numlab | grep '^/usr/bin/numlab$' >/dev/null || fail "dpkg does not list /usr/bin/numlab"
dpkg --root="$root" -S "$lib/libnumlab-num.so" | grep '^libnumlab-dev:' >/dev/null ||
  fail "dpkg does not list libnumlab-num.so under libnumlab-dev"

# The name and shlibs above follow the soversion CMake meant; the libraries'
# own SONAMEs (what the linker records in their users) must say the same.
for name in num rundb; do
  soname=$(readelf --dynamic "$root$lib/libnumlab-$name.so.$soversion" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
  [ "$soname" = "libnumlab-$name.so.$soversion" ] || fail "libnumlab-$name.so.$soversion has SONAME '$soname'"
done

export LD_LIBRARY_PATH=$root$lib
for binary in "$root/usr/bin/numlab" "$root/usr/bin/numlab-gui" "$root$lib/libnumlab-num.so.$soversion" \
              "$root$lib/libnumlab-rundb.so.$soversion" "$root"/usr/lib/python3/dist-packages/numlab/_core*.so; do
  if ldd "$binary" | grep 'not found' >/dev/null; then fail "$binary: $(ldd "$binary" | grep 'not found')"; fi
done
cd "$root"
"$root/usr/bin/numlab" train --config tutorial_conv_fp32 --print-config | grep 'model: tutorial_conv' >/dev/null ||
  fail "numlab does not find its installed configs"
"$root/usr/bin/numlab" round 0.1 --format fp16 --mode ne | grep '0x2e66' >/dev/null || fail "numlab round"
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
"$root/usr/bin/numlab" inspect "$root/check.db" | grep deb-check >/dev/null || fail "numlab inspect cannot read the database"
echo "check_deb: ${#debs[@]} packages (${packages[*]}) resolve, unpack and run"
