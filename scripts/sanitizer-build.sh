# Sourced by fuzz.sh and sanitize.sh: the clang ASan+UBSan build tree they
# share (build-fuzz). Everything in it is compiled with
#   -fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined
# so the libraries carry coverage for libFuzzer and every UBSan report aborts;
# fuzz targets add the libFuzzer main, test suites link as usual. Building
# fathom_core once serves both scripts.
#
# Provides: ROOT, BUILD_DIR, SHARED_DIR, san_have_clang (false, with a message,
# when clang++ or libFuzzer is missing), san_configure, san_build TARGET...,
# and exports ASAN_OPTIONS / UBSAN_OPTIONS for what runs afterwards.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
SHARED_DIR="${FATHOM_SHARED_DIR:-$ROOT/../shared}"
SHARED_DIR="$(cd "$SHARED_DIR" 2>/dev/null && pwd || echo "$SHARED_DIR")"

# halt_on_error: the first report fails the run (UBSan would otherwise print
# and continue). Leak checking stays on: a leak is a finding too.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

san_have_clang() {
  CXX_BIN="$(command -v clang++ || command -v clang++-14 || true)"
  CC_BIN="$(command -v clang || command -v clang-14 || true)"
  if [ -z "$CXX_BIN" ] || [ -z "$CC_BIN" ]; then
    echo "$1: clang++ not found; skipping" >&2
    return 1
  fi
  local rt
  rt="$("$CXX_BIN" -print-runtime-dir 2>/dev/null || true)"
  if ! ls "$rt"/libclang_rt.fuzzer*.a >/dev/null 2>&1 &&
     ! ls "$("$CXX_BIN" -print-resource-dir)"/lib/linux/libclang_rt.fuzzer*.a >/dev/null 2>&1; then
    echo "$1: libFuzzer runtime not found (install libclang-rt-14-dev); skipping" >&2
    return 1
  fi
}

san_configure() {
  # -gline-tables-only: file:line in reports at a fraction of -g's build time.
  local flags="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined"
  flags="$flags -fno-omit-frame-pointer -gline-tables-only"
  CC="$CC_BIN" CXX="$CXX_BIN" cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DFATHOM_BUILD_FUZZ=ON -DFATHOM_BUILD_TESTS=ON -DFATHOM_BUILD_BENCH=OFF \
    -DFATHOM_BUILD_GUI=OFF -DFATHOM_BUILD_DEVICE=OFF \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DFATHOM_SHARED_DIR="$SHARED_DIR" >/dev/null
}

san_build() {
  CCACHE_BASEDIR="$ROOT" cmake --build "$BUILD_DIR" -j "${FUZZ_JOBS:-$(nproc)}" --target "$@"
}
