#!/usr/bin/env bash
# device/ for arm64, the ABI of most Android devices: the programs Fathom ships, built from
# the same sources by Debian's aarch64 cross compiler with warnings as errors. This machine
# has no NDK, so this stands in for its build (glibc instead of bionic): code that only
# builds on x86-64 (the CFI unwinder, TSC reads, pause) must stay behind its guards.
# Usage: cross_build_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1
out=$2
if ! command -v aarch64-linux-gnu-g++ >/dev/null 2>&1; then
  echo "SKIP: aarch64-linux-gnu-g++ is not installed (package g++-aarch64-linux-gnu)"
  exit 77
fi
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="$src"
fi
rm -rf "$out"
cmake -S "$src/device" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_TOOLCHAIN_FILE="$src/tests/device/aarch64-linux-gnu.cmake" \
  -DCMAKE_CXX_FLAGS="-Wall -Wextra -Wno-unused-parameter -Werror" -DCMAKE_C_FLAGS="-Wall -Werror" "${launcher[@]}" >"$out.configure.log" 2>&1 ||
  { cat "$out.configure.log"; exit 1; }
cmake --build "$out"
for f in bin/fathom-heapprofd bin/libfathom_heapprof.so recorder/fathom-recorder; do
  if ! readelf -h "$out/$f" | grep -q "Machine:.*AArch64"; then
    echo "FAIL: $out/$f is not an AArch64 ELF file"
    exit 1
  fi
  echo "ok: $f is AArch64"
done
