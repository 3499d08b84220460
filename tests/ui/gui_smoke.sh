#!/bin/sh
# Starts the real application under Xvfb (xcb platform, not offscreen), saves a screenshot of
# the window on the bundled sample, and checks the PNG is drawn (many colours, right size).
set -eu
app=$1
out=$2
export XDG_RUNTIME_DIR="$(mktemp -d)"
export QT_QPA_PLATFORM=xcb
rm -f "$out"
xvfb-run -a -s "-screen 0 1280x800x24" "$app" --screenshot "$out"
[ -s "$out" ] || { echo "no screenshot written"; exit 1; }
colours=$(identify -format %k "$out")
size=$(identify -format %wx%h "$out")
echo "screenshot $out: $size, $colours colours"
[ "$colours" -gt 200 ] || { echo "window looks blank"; exit 1; }
