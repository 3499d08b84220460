#!/usr/bin/env bash
# Builds the .deb and .tar.gz with CPack, unpacks the .deb with dpkg-deb -x and checks it as
# an installed program: `sparsity --version`, a batch on the bundled sample, the app opening
# the installed sample, the desktop file
# and AppStream metadata, the man pages, Depends computed by shlibdeps (HDF5's, or with HDF5
# static its szip and zlib), Suggests naming the filter plugins, no shared CUDA runtime.
#
#   package_test.sh BUILD_DIR WORK_DIR HDF5_STATIC (ON or OFF: cmake/Hdf5Serial.cmake)
set -euo pipefail
build=$1
work=$2
hdf5_static=$3
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

cpack --config "$build/CPackConfig.cmake" -B "$work" -G "DEB;TGZ" >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; fail "cpack"; }
deb=$(ls "$work"/sparsity-workbench_*.deb)
tgz=$(ls "$work"/sparsity-workbench-*.tar.gz)

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
[[ $depends == *libqt6* ]] || fail "Depends lacks libqt6 (shlibdeps): $depends"
# HDF5: the shared library, or where it is linked statically (cmake/Hdf5Serial.cmake) what its
# objects need, szip and zlib, and no libhdf5 or libcurl loaded by the commands.
if [[ $hdf5_static == ON ]]; then
    [[ $depends == *libsz2* && $depends == *zlib1g* && $depends != *libhdf5* ]] \
        || fail "Depends of a static HDF5 build must hold libsz2 and zlib1g and no libhdf5: $depends"
else
    [[ $depends == *libhdf5* ]] || fail "Depends lacks libhdf5 (shlibdeps): $depends"
fi
[[ $(dpkg-deb -f "$deb" Suggests) == *hdf5-filter-plugin* ]] || fail "Suggests lacks the HDF5 filter plugins"
# (grep reads whole outputs here: with pipefail, an early `grep -q` exit fails the writer.)
grep -c 'bin/sparsity$' <(tar -tzf "$tgz") >/dev/null || fail "the .tar.gz has no bin/sparsity"

root="$work/root"
dpkg-deb -x "$deb" "$root"
for f in usr/bin/sparsity usr/bin/sparsity-workbench usr/share/applications/sparsity-workbench.desktop \
         usr/share/metainfo/io.github.sparsity_workbench.metainfo.xml \
         usr/share/icons/hicolor/scalable/apps/sparsity-workbench.svg \
         usr/share/icons/hicolor/48x48/apps/sparsity-workbench.png \
         usr/share/man/man1/sparsity.1.gz usr/share/man/man1/sparsity-workbench.1.gz \
         usr/share/sparsity-workbench/samples/sample.h5 usr/share/sparsity-workbench/examples/threshold_csr.json \
         usr/share/doc/sparsity-workbench/LICENSE; do
    [[ -e "$root/$f" ]] || fail "the package lacks /$f"
done
! grep -c libcudart <(ldd "$root/usr/bin/sparsity") >/dev/null || fail "sparsity links a shared CUDA runtime"
if [[ $hdf5_static == ON ]]; then
    ! grep -c -E 'libhdf5|libcurl' <(ldd "$root/usr/bin/sparsity") >/dev/null || fail "sparsity loads libhdf5 or libcurl"
fi

grep -c '^sparsity ' <("$root/usr/bin/sparsity" --version) >/dev/null || fail "sparsity --version"
grep -c 'EXIT STATUS' <(man -l "$root/usr/share/man/man1/sparsity.1.gz" 2>/dev/null) >/dev/null || fail "man page sparsity.1"
desktop-file-validate "$root/usr/share/applications/sparsity-workbench.desktop" || fail "desktop file"
appstreamcli validate --no-net "$root/usr/share/metainfo/io.github.sparsity_workbench.metainfo.xml" >/dev/null \
    || fail "AppStream metadata"

# A batch on the sample, from a writable copy of the installed data (examples reach ../samples).
cp -r "$root/usr/share/sparsity-workbench" "$work/data"
"$root/usr/bin/sparsity" run "$work/data/examples/threshold_csr.json" --json >"$work/run.json"
grep -q '"failed": 0' "$work/run.json" || fail "the example batch failed: $(cat "$work/run.json")"
grep -c '/emb *csr' <("$root/usr/bin/sparsity" inspect "$work/data/examples/out/sample.threshold.h5") >/dev/null \
    || fail "the example batch wrote no CSR /emb"
# The installed app opens the installed sample (offscreen) and draws its window.
QT_QPA_PLATFORM=offscreen "$root/usr/bin/sparsity-workbench" --screenshot "$work/window.png" >/dev/null 2>&1 \
    || fail "the installed sparsity-workbench did not start"
[[ -s "$work/window.png" ]] || fail "the installed sparsity-workbench drew nothing"
echo "package checks passed: $(basename "$deb")"
