#!/usr/bin/env bash
# Renders the hicolor PNG sizes from sparsity-workbench.svg (ImageMagick). The PNGs are
# committed; run this after editing the SVG.
set -euo pipefail
cd "$(dirname "$0")"
for size in 16 24 32 48 64 128 256; do
    convert -background none -density 300 sparsity-workbench.svg -resize "${size}x${size}" "sparsity-workbench-${size}.png"
done
