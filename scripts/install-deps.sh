#!/usr/bin/env bash
# Installs the Debian 12 packages the build (and, with --test, the test suite) needs, and
# only those that are missing. Runs apt-get as root, or through sudo.
set -euo pipefail

build=(build-essential cmake ninja-build pkg-config file dpkg-dev
       qt6-base-dev libqt6opengl6-dev qt6-charts-dev libxkbcommon-dev libgl-dev
       libhdf5-dev hdf5-tools libeigen3-dev libcli11-dev nlohmann-json3-dev)
test=(python3 python3-h5py python3-numpy python3-scipy python3-anndata xvfb xauth imagemagick
      desktop-file-utils appstream man-db)

wanted=("${build[@]}")
[[ "${1:-}" == "--test" ]] && wanted+=("${test[@]}")

missing=()
for pkg in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "Installing: ${missing[*]}"
sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" xfonts-base >/dev/null
