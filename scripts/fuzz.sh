#!/usr/bin/env bash
# Builds the libFuzzer targets (the `fuzz` preset: clang-14, ASan + UBSan; see docs/TESTING.md)
# and runs each for SECONDS/2 (default SECONDS=120) on a temporary copy of its seed corpus,
# so the committed corpus (tests/fuzz/corpus/) never grows. Exits 1 on any crash, sanitizer
# report, leak, hang (-timeout) or out-of-memory, printing the reproducer's path; the
# temporary folder is then kept so the reproducer survives.
#
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-120}
[[ $seconds =~ ^[0-9]+$ && $seconds -ge 2 ]] || { echo "usage: scripts/fuzz.sh [SECONDS>=2]" >&2; exit 2; }
per_target=$((seconds / 2))

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target fuzz_h5_structured fuzz_batch_recipe

work=$(mktemp -d "${TMPDIR:-/tmp}/sparsity-fuzz.XXXXXX")
failed=0
# One process per target (no -jobs/-fork: they would fork workers and write fuzz-N.log files
# elsewhere); OpenMP kept to one thread so a run is reproducible and cheap on shared CI cores.
export OMP_NUM_THREADS=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# allocator_may_return_null: a malloc of an absurd size returns NULL, as glibc's does, so
# libhdf5 (not instrumented) handles the sizes a corrupted header declares the way it does in
# the product; `new` in our code still fails the run. lsan.supp: leaks inside libhdf5 itself.
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp
# fuzz_batch_recipe writes each input to a file there (parseBatch reads a path).
export TMPDIR=$work

run_fuzzer() {
    local target=$1 corpus=$2
    shift 2
    mkdir -p "$work/$corpus"
    if [[ -d tests/fuzz/corpus/$corpus ]]; then
        cp tests/fuzz/corpus/"$corpus"/* "$work/$corpus"/
    fi
    # Inputs that once failed (tests/fuzz/regressions/) start the run too.
    if [[ -d tests/fuzz/regressions/$corpus ]]; then
        cp tests/fuzz/regressions/"$corpus"/* "$work/$corpus"/ 2>/dev/null || true
    fi
    mkdir -p "$work/artifacts-$target"
    echo "fuzz: $target for ${per_target}s on a copy of tests/fuzz/corpus/$corpus (and regressions/$corpus)"
    # -timeout=10: one input running 10 s is a hang, reported as a failure. The memory caps
    # make an absurd declared size fail here rather than swap the CI machine.
    if ! "build/fuzz/tests/fuzz/$target" "$work/$corpus" "$@" \
        -max_total_time="$per_target" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
        -artifact_prefix="$work/artifacts-$target/" -print_final_stats=1 >"$work/$target.log" 2>&1; then
        failed=1
        tail -n 60 "$work/$target.log" >&2
        echo "fuzz: $target FAILED; full log: $work/$target.log" >&2
        for reproducer in "$work/artifacts-$target"/*; do
            [[ -e $reproducer ]] || continue
            echo "fuzz: reproducer: $reproducer (replay: build/fuzz/tests/fuzz/$target $reproducer)" >&2
        done
    else
        grep -E '^stat::number_of_executed_units|^#[0-9]+ *DONE' "$work/$target.log" | sed "s/^/fuzz: $target: /" || true
    fi
}

# fuzz_h5_structured, not fuzz_h5_decoders: raw images reach memory errors inside libhdf5
# 1.10.8 itself that no check of ours can prevent (docs/TESTING.md), which would fail CI at
# random. Its inputs are generator choices, so it starts from an empty corpus.
run_fuzzer fuzz_h5_structured h5_structured
run_fuzzer fuzz_batch_recipe batch -dict=tests/fuzz/batch_recipe.dict

if [[ $failed -ne 0 ]]; then
    echo "fuzz: failures found; inputs and logs kept in $work" >&2
    exit 1
fi
rm -rf "$work"
echo "fuzz: no crash, leak, hang or out-of-memory in ${seconds}s"
