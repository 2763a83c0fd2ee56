#!/usr/bin/env bash
# Builds tests/windows/subprocess_win_test.cc with mingw-w64 (it needs only
# core/symbols/subprocess_win.cc and base/status.h, not the dependency cache)
# and runs it under Wine. Skips (77) when either tool is missing.
# Usage: subprocess_win_test.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src=$1
work=$2
cxx=x86_64-w64-mingw32-g++-posix
wine=$(command -v wine64 || command -v wine || { [ -x /usr/lib/wine/wine64 ] && echo /usr/lib/wine/wine64; } || true)
if ! command -v $cxx >/dev/null || [ -z "$wine" ]; then
  echo "skipped: needs $cxx and wine64"
  exit 77
fi
mkdir -p "$work"
exe=$work/subprocess_win_test.exe
$cxx -std=c++20 -O1 -I"$src" "$src/core/symbols/subprocess_win.cc" \
  "$src/tests/windows/subprocess_win_test.cc" -static -lshell32 -o "$exe"
export WINEPREFIX=$work/prefix WINEDEBUG=-all
timeout 300 "$wine" "$exe"
