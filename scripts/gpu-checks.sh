#!/usr/bin/env bash
# The device checks for a CUDA host, run from the checkout there with this project's build
# on PATH as `sparsity`. A bare host (no Qt, HDF5 or Eigen) takes a bundle of the build made
# here (build/release, its executables and the shared libraries they need, unpacked at the same
# absolute paths with the libraries under /opt/sparsity-libs), and for the mpi parts Open MPI's
# runtime (scripts/gpu-mpi-bundle.sh), e.g.
#
#   tar -xJf .gpu/bundle.tar.xz -C / && tar -xJf .gpu/mpi.tar.xz -C / && export PATH=/opt/sparsity-libs/bin:$PATH;
#   bash scripts/gpu-checks.sh OUTDIR [PART...]
#
# Writes to OUTDIR, one file per part (default: every part but mpi and mpi-bench):
#   tests      the gpu-labelled tests (the CUDA kernels against the CPU's)
#   memcheck   compute-sanitizer memcheck of each gpu test binary
#   bench      bench_gpu.py's figures (CUDA against the CPU and PyTorch on the same GPU)
#   core       the core tests, on a host with a GPU (the cli tests run their scripts with
#              Debian's /usr/bin/python3 and its h5py, which a bare host lacks: 104 of them
#              failed there in 0.05 s each on 2026-11-28, before running anything)
#   mpi        sparsity-mpi --device cuda under mpirun -np 1..3 against sparsity --device cuda
#   mpi-bench  bench_mpi.py on this host's cores, 1 to 16 ranks
# Each part has its own time limit so that one slow part cannot take the others' device time.
set -uo pipefail
out=${1:?usage: gpu-checks.sh OUTDIR [PART...]}
shift
parts=("$@")
(( ${#parts[@]} )) || parts=(tests memcheck bench core)
mkdir -p "$out"
libs=/opt/sparsity-libs
build=$(cat "$libs/build-dir")
export LD_LIBRARY_PATH=$libs
# Open MPI in a container: shared memory between the ranks, without the cross-process reads
# (ptrace rights) or the network transports it would try first.
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
{
    nvidia-smi
    nproc
    sparsity --version
    # The CUDA context's cost as a user meets it: the report's device_init_seconds, twice.
    python3 -c 'import h5py, numpy; h5py.File("/tmp/init.h5", "w")["x"] = numpy.ones((1024, 1024), "float32")'
    for i in 1 2; do sparsity sparsify /tmp/init.h5 -o /tmp/init-out.h5 --method threshold --threshold 0.5 --device cuda --json \
        | python3 -c 'import json, sys; r = json.load(sys.stdin); print("device_init_seconds", r["device_init_seconds"])'; rm -f /tmp/init-out.h5; done
} > "$out/device.txt" 2>&1
for part in "${parts[@]}"; do
    case $part in
    tests)
        timeout 90 ctest --test-dir "$build" -L gpu -LE mpi --output-on-failure -j4 > "$out/gpu-tests.txt" 2>&1
        echo "gpu tests exit $?" >> "$out/gpu-tests.txt" ;;
    memcheck)
        sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
        for t in dense_to_csr sparsify eval optimizer; do
            timeout 45 "$sanitizer" --tool memcheck --error-exitcode 9 "$build/tests/gpu/tst_gpu_$t" > "$out/memcheck-$t.txt" 2>&1
            echo "memcheck exit $?" >> "$out/memcheck-$t.txt"
        done ;;
    bench)
        timeout 240 python3 tests/bench/bench_gpu.py "$(command -v sparsity)" /tmp/bench-gpu --runs 3 --hbm-gbs "${HBM_GBS:-4800}" \
            > "$out/bench-gpu.txt" 2>&1
        echo "bench exit $?" >> "$out/bench-gpu.txt" ;;
    core)
        timeout 150 ctest --test-dir "$build" -L core -j16 --timeout 100 > "$out/core-tests.txt" 2>&1
        echo "core exit $?" >> "$out/core-tests.txt" ;;
    mpi)
        # The test's own script with this host's python3 (h5py); the binaries by their build paths.
        timeout 150 python3 tests/cli/mpi_cases.py "$build/app/cli/sparsity" "$build/app/cli/sparsity-mpi" /usr/bin/mpirun \
            /tmp/mpi-gpu gpu > "$out/mpi-gpu.txt" 2>&1
        echo "mpi gpu exit $?" >> "$out/mpi-gpu.txt" ;;
    mpi-bench)
        (cd tests/bench && timeout 150 python3 bench_mpi.py "$build/app/cli/sparsity" "$build/app/cli/sparsity-mpi" /usr/bin/mpirun \
            /tmp/bench-mpi --runs 2 --more-ranks 4,8,16) > "$out/bench-mpi.txt" 2>&1
        echo "mpi bench exit $?" >> "$out/bench-mpi.txt" ;;
    *) echo "gpu-checks: unknown part $part" >&2; exit 2 ;;
    esac
done
