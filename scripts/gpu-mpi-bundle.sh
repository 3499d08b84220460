#!/usr/bin/env bash
# Packs Debian's Open MPI runtime for a bare CUDA host, beside ../shared/tools/gpu-bundle's
# bundle of the build (which holds `sparsity-mpi` and the libraries it links, but not `mpirun`
# or the plugins Open MPI loads at run time). Run from the project's root:
#
#   bash scripts/gpu-mpi-bundle.sh        -> .gpu/mpi.tar.xz
#
# On the GPU host, after the build's bundle:
#
#   tar -xJf .gpu/mpi.tar.xz -C /
#
# puts Open MPI's own files (plugins, help texts, configuration) at the absolute paths the
# library was built to look in, its shared libraries and theirs under /opt/sparsity-libs, and
# /usr/bin/mpirun (the path this build's tests name) as a wrapper that sets the library path
# for mpirun and the ranks it starts. scripts/gpu-checks.sh uses it for the mpi-over-CUDA part.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
libs=$stage/opt/sparsity-libs
mkdir -p "$libs" "$stage/usr/bin" "$stage/usr/lib/x86_64-linux-gnu"
# Open MPI's and PMIx's private trees, found by compiled-in paths.
for tree in /usr/lib/x86_64-linux-gnu/openmpi /usr/lib/x86_64-linux-gnu/pmix2 /usr/share/openmpi /etc/openmpi; do
    mkdir -p "$stage$(dirname "$tree")"
    cp -a "$tree" "$stage$tree"
done
cp -p /usr/bin/orterun /usr/bin/orted "$stage/usr/bin/"
# Every shared library the programs and plugins need, but the C runtime the host has itself.
plugins=$(find /usr/lib/x86_64-linux-gnu/openmpi /usr/lib/x86_64-linux-gnu/pmix2 -name '*.so' -type f)
# shellcheck disable=SC2086
ldd /usr/bin/orterun /usr/bin/orted $plugins 2>/dev/null | awk '/=> \//{print $3}' | sort -u | while read -r lib; do
    case $(basename "$lib") in
        libc.so.*|libm.so.*|libdl.so.*|librt.so.*|libpthread.so.*|libresolv.so.*|ld-linux*|libgcc_s.so.*|libstdc++.so.*|libcuda.so.*) ;;
        *) cp -L "$lib" "$libs/" ;;
    esac
done
for name in mpirun mpiexec; do
    printf '#!/bin/sh\nLD_LIBRARY_PATH=/opt/sparsity-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} exec /usr/bin/orterun "$@"\n' \
        > "$stage/usr/bin/$name"
    chmod +x "$stage/usr/bin/$name"
done
mkdir -p .gpu
tar -C "$stage" -cJf .gpu/mpi.tar.xz opt usr etc  # not ".": its mode would become /'s
echo "gpu-mpi-bundle: .gpu/mpi.tar.xz, $(( $(stat -c %s .gpu/mpi.tar.xz) / 1024 / 1024 )) MiB"
