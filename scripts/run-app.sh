#!/usr/bin/env bash
# Fresh Debian 12 to a running desktop app: installs what is missing, builds (Release),
# and opens the bundled sample. Extra arguments go to the app (e.g. a file to open).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
exec build/release/app/gui/sparsity-workbench "$@"
