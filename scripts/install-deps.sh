#!/usr/bin/env bash
# Installs every Debian 12 package numlab needs to build, test and run.
# Idempotent: packages already present are left as they are.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config git help2man
  libboost-dev libmpfr-dev libgmp-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libsqlite3-dev libyaml-cpp-dev libcli11-dev zlib1g-dev libxxhash-dev
  libopenblas-dev libeigen3-dev libimath-dev libomp-dev
  qt6-base-dev libqcustomplot-dev libqcustomplot2.1-qt6 xvfb xdotool x11-apps netpbm
  dataset-fashion-mnist parallel
  python3-dev pybind11-dev python3-numpy python3-pytest python3-torch
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: missing packages: ${missing[*]} (run as root to install them)" >&2
    exit 2
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
