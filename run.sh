#!/usr/bin/env bash
# Installs what is missing, builds, and opens Fathom on TRACE (or on the
# bundled sample trace).
set -euo pipefail
cd "$(dirname "$0")"
./scripts/setup-deps.sh
./scripts/build.sh
TRACE="${1:-resources/sample/sample.pftrace}"
if [ ! -x build/bin/fathom ]; then
  # Built without Qt: what the trace holds, from the command line.
  exec build/bin/fathom-cli info "$TRACE"
fi
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] || [ "$(uname)" = Darwin ]; then
  exec build/bin/fathom "$TRACE"
fi
# No display (ssh, CI): render the timeline offscreen instead and say where it is.
mkdir -p build/screenshots
QT_QPA_PLATFORM=offscreen build/bin/fathom --screenshot build/screenshots/run.png "$TRACE"
echo "No display: wrote build/screenshots/run.png (timeline of $TRACE)."
echo "With a display, ./run.sh opens the window; xvfb-run ./run.sh works too."
exec build/bin/fathom-cli info "$TRACE"
