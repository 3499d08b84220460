#!/usr/bin/env bash
# The device checks for a CUDA host, run from the checkout there with this project's build
# on PATH as `sparsity`. A bare host (no Qt, HDF5 or Eigen) takes a bundle of the build made
# here (build/release, its executables and the shared libraries they need, unpacked at the same
# absolute paths with the libraries under /opt/sparsity-libs), e.g.
#
#   tar -xJf .gpu/bundle.tar.xz -C / && export PATH=/opt/sparsity-libs/bin:$PATH; bash scripts/gpu-checks.sh OUTDIR
#
# Writes to OUTDIR: the gpu-labelled tests, compute-sanitizer memcheck of each gpu test binary,
# bench_gpu.py's figures (CUDA against the CPU and PyTorch on the same GPU), and the core and
# cli tests run on a host with a GPU. Each part has its own time limit so that one
# slow part cannot take the others' device time.
set -uo pipefail
out=${1:?usage: gpu-checks.sh OUTDIR}
mkdir -p "$out"
libs=/opt/sparsity-libs
build=$(cat "$libs/build-dir")
export LD_LIBRARY_PATH=$libs
{ nvidia-smi; nproc; sparsity --version; } > "$out/device.txt" 2>&1
timeout 120 ctest --test-dir "$build" -L gpu --output-on-failure -j4 > "$out/gpu-tests.txt" 2>&1
echo "gpu tests exit $?" >> "$out/gpu-tests.txt"
timeout 240 python3 tests/bench/bench_gpu.py "$(command -v sparsity)" /tmp/bench-gpu --runs 3 --hbm-gbs "${HBM_GBS:-4800}" \
    > "$out/bench-gpu.txt" 2>&1
echo "bench exit $?" >> "$out/bench-gpu.txt"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for t in dense_to_csr sparsify eval optimizer; do
    timeout 60 "$sanitizer" --tool memcheck --error-exitcode 9 "$build/tests/gpu/tst_gpu_$t" > "$out/memcheck-$t.txt" 2>&1
    echo "memcheck exit $?" >> "$out/memcheck-$t.txt"
done
# The cli tests call cmake by the path this machine has it at.
[[ -x /usr/bin/cmake ]] || ln -s "$(command -v cmake)" /usr/bin/cmake 2>/dev/null
timeout 150 ctest --test-dir "$build" -L 'core|cli' -j16 --timeout 100 > "$out/core-cli-tests.txt" 2>&1
echo "core+cli exit $?" >> "$out/core-cli-tests.txt"
