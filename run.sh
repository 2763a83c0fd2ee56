#!/usr/bin/env bash
# Installs what is missing, builds, and opens Fathom on TRACE (or on the
# bundled sample trace).
set -euo pipefail
cd "$(dirname "$0")"
./scripts/setup-deps.sh
./scripts/build.sh
TRACE="${1:-resources/sample/sample.pftrace}"
if [ -x build/bin/fathom ]; then
  exec build/bin/fathom "$TRACE"
fi
# Until the GUI lands: what the trace holds.
exec build/bin/fathom-cli info "$TRACE"
