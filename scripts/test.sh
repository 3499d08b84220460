#!/usr/bin/env bash
# Fresh Debian 12 to a tested build: installs what is missing, configures with a preset
# (default: release; "asan" builds with AddressSanitizer+UBSan, CUDA off), builds, and runs
# the whole test suite except the benchmarks (ctest -L bench runs those).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
scripts/install-deps.sh --test
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
chmod 700 "$XDG_RUNTIME_DIR"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp
cmake --preset "$preset"
cmake --build --preset "$preset"
ctest --preset "$preset"
