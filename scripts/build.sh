#!/usr/bin/env bash
# Configures (once) and builds Release into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
# Paths relative to the checkout so ccache hits across clones (CI builds a fresh one).
export CCACHE_BASEDIR="$PWD"
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
fi
cmake --build build -j "$(nproc)"
