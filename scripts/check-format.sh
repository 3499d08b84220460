#!/usr/bin/env bash
# Fails, listing the files, when a tracked C++/CUDA file differs from .clang-format's style.
# Fix with: git ls-files '*.cpp' '*.h' '*.cu' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check-format: clang-format is not installed" >&2; exit 2; }
bad=()
while IFS= read -r file; do
    clang-format --dry-run -Werror "$file" >/dev/null 2>&1 || bad+=("$file")
done < <(git ls-files '*.cpp' '*.h' '*.cu')
if [[ ${#bad[@]} -gt 0 ]]; then
    echo "check-format: ${#bad[@]} file(s) differ from .clang-format:" >&2
    printf '  %s\n' "${bad[@]}" >&2
    exit 1
fi
echo "check-format: every C++/CUDA file follows .clang-format"
