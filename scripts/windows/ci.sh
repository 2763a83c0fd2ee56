#!/usr/bin/env bash
# test.sh's Windows step: cross-builds build-win/bin/fathom-cli.exe when the
# dependency cache (scripts/windows/build-deps.sh) and Wine are on this machine, so
# the Linux configure that follows registers the Wine test (tests/windows/). Without
# them it prints one line and does nothing: a fresh machine does not spend the
# cache's build time (see README, Install -> Windows).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=deps-common.sh
source scripts/windows/deps-common.sh
if [ ! -f "$PREFIX/.complete" ] || ! command -v $TRIPLE-g++-posix >/dev/null ||
   ! { command -v wine64 || command -v wine || [ -x /usr/lib/wine/wine64 ]; } >/dev/null; then
  echo "windows: skipped (no dependency cache at $PREFIX; scripts/windows/build-deps.sh makes it)"
  exit 0
fi
# The installer too (a CLI-only one here: seconds to pack, ~20 s to test under Wine).
FATHOM_WIN_NO_DEPS_BUILD=1 FATHOM_WIN_PACKAGE=1 scripts/windows/build.sh
