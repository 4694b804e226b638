# Sourced by tests/install/check_deb.sh and scripts/test-deb-install.sh: the
# six Debian packages `cpack -G DEB` wrote into a build folder, named from the
# version and soversion that CMake defined for that build (BUILD/deb-packages.txt,
# written by cmake/package.cmake), so that no script spells out a version.
#
#   deb_packages BUILD CALLER   sets version, soversion, packages (names) and
#                               debs (their files, in the same order); on a
#                               missing or ambiguous file it prints one line
#                               naming CALLER and what is missing, and returns 2.
deb_packages() {
  local build=$1 caller=$2
  local manifest=$build/deb-packages.txt
  if [ ! -f "$manifest" ]; then
    echo "$caller: no $manifest (configure and build there, then cpack -G DEB)" >&2
    return 2
  fi
  version=$(sed -n 's/^version=//p' "$manifest")
  soversion=$(sed -n 's/^soversion=//p' "$manifest")
  if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ && $soversion =~ ^[0-9]+\.[0-9]+$ ]]; then
    echo "$caller: $manifest: version '$version' or soversion '$soversion' is malformed" >&2
    return 2
  fi
  # Debian Policy 8.1: a shared library's package is named for its SONAME.
  packages=("libnumlab-num$soversion" "libnumlab-rundb$soversion" libnumlab-dev numlab numlab-gui python3-numlab)
  debs=()
  local p matches
  for p in "${packages[@]}"; do
    # Older versions' packages may lie beside these: only this version's count.
    matches=("$build/${p}_${version}_"*.deb)
    if [ ! -f "${matches[0]}" ]; then
      echo "$caller: no ${p}_${version}_*.deb in $build (run cpack -G DEB there)" >&2
      return 2
    fi
    if [ "${#matches[@]}" -ne 1 ]; then
      echo "$caller: ${#matches[@]} files match ${p}_${version}_*.deb in $build" >&2
      return 2
    fi
    debs+=("${matches[0]}")
  done
}
