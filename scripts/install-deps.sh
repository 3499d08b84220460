#!/usr/bin/env bash
# Installs the Debian 12 packages the build (and, with --test, the test suite, the format check
# and the fuzzers; with --bench, the benchmarks and the golden files' scripts, which run PyTorch
# beside our commands) needs, and only those that are missing. Runs apt-get as root, or through sudo.
# --print lists the packages instead (scripts/check-deps-closure.py reads it).
#
# Every package whose headers, libraries or CMake config the build uses must be named here or
# reached through a named package's Depends: --no-install-recommends leaves Recommends out, so a
# package that only a Recommends brings in (libqt6opengl6-dev, which Qt6Charts' CMake config
# needs, is one of qt6-base-dev) is missing on a fresh machine. CI checks this with
# scripts/check-deps-closure.py.
set -euo pipefail

build=(build-essential cmake ninja-build pkg-config file dpkg-dev
       qt6-base-dev libqt6opengl6-dev qt6-charts-dev libxkbcommon-dev libgl-dev
       libhdf5-dev hdf5-tools zlib1g-dev libeigen3-dev libcli11-dev nlohmann-json3-dev
       libhdf5-openmpi-dev openmpi-bin)
test=(python3 python3-h5py python3-numpy python3-scipy python3-anndata xvfb xauth xfonts-base imagemagick
      desktop-file-utils appstream man-db clang-format clang-14 libclang-rt-14-dev libomp-14-dev e2fsprogs
      hdf5-filter-plugin hdf5-filter-plugin-blosc-serial)
# Not for the suite (its golden files are committed): PyTorch 1.13, the reference the
# benchmarks (tests/bench) time and tests/reference/make_*_golden.py compute with.
bench=(python3 python3-h5py python3-numpy python3-scipy python3-torch)

print=false with_test=false with_bench=false
for arg in "$@"; do
    case "$arg" in
        --print) print=true ;;
        --test) with_test=true ;;
        --bench) with_bench=true ;;
        *) echo "usage: $0 [--test] [--bench] [--print]" >&2; exit 2 ;;
    esac
done

wanted=("${build[@]}")
$with_test && wanted+=("${test[@]}")
$with_bench && wanted+=("${bench[@]}")
if $print; then
    printf '%s\n' "${wanted[@]}"
    exit 0
fi

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
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
