#!/usr/bin/env bash
# Fuzzes the trace loader for FUZZ_SECONDS (default 60) with libFuzzer + ASan,
# seeded with the shared test traces and every difftest trace.pb. Fails when
# the fuzzer finds a crash, leak, timeout or sanitizer report; the input that
# did it is left in build-fuzz/artifacts/. Skips (exit 0) without clang++ and
# libFuzzer (libclang-rt-14-dev).
#
# Builds only fathom_protos, fathom_core and the fuzz target, in build-fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
BUILD_DIR="${FUZZ_BUILD_DIR:-build-fuzz}"
SECONDS_TO_RUN="${FUZZ_SECONDS:-60}"
SHARED_DIR="${FATHOM_SHARED_DIR:-$ROOT/../shared}"

CXX_BIN="$(command -v clang++ || command -v clang++-14 || true)"
CC_BIN="$(command -v clang || command -v clang-14 || true)"
if [ -z "$CXX_BIN" ] || [ -z "$CC_BIN" ]; then
  echo "fuzz.sh: clang++ not found; skipping fuzzing" >&2
  exit 0
fi
RT_DIR="$("$CXX_BIN" -print-runtime-dir 2>/dev/null || true)"
if ! ls "$RT_DIR"/libclang_rt.fuzzer*.a >/dev/null 2>&1 &&
   ! ls "$("$CXX_BIN" -print-resource-dir)"/lib/linux/libclang_rt.fuzzer*.a >/dev/null 2>&1; then
  echo "fuzz.sh: libFuzzer runtime not found (install libclang-rt-14-dev); skipping" >&2
  exit 0
fi

# Instrument everything we build (coverage + ASan); only the fuzz target links
# the libFuzzer main.
SAN_FLAGS="-fsanitize=address,fuzzer-no-link -fno-omit-frame-pointer -g"
CC="$CC_BIN" CXX="$CXX_BIN" cmake -S . -B "$BUILD_DIR" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DFATHOM_BUILD_FUZZ=ON -DFATHOM_BUILD_TESTS=ON -DFATHOM_BUILD_BENCH=OFF \
  -DCMAKE_C_FLAGS="$SAN_FLAGS" -DCMAKE_CXX_FLAGS="$SAN_FLAGS" \
  -DFATHOM_SHARED_DIR="$SHARED_DIR" >/dev/null
CCACHE_BASEDIR="$ROOT" cmake --build "$BUILD_DIR" -j "${FUZZ_JOBS:-$(nproc)}" --target fathom_fuzz_trace

# Seeds are copied so the shared data is never written to; libFuzzer adds what
# it discovers to the first corpus directory.
CORPUS="$BUILD_DIR/fuzz-corpus"
SEEDS="$BUILD_DIR/fuzz-seeds"
ARTIFACTS="$BUILD_DIR/artifacts"
rm -rf "$SEEDS"
mkdir -p "$CORPUS" "$SEEDS" "$ARTIFACTS"
if [ -d "$SHARED_DIR/testdata" ]; then
  find "$SHARED_DIR/testdata" -maxdepth 1 -type f \
    \( -name '*.perfetto-trace' -o -name '*.pftrace' -o -name '*.pb' \) \
    -exec cp {} "$SEEDS/" \;
fi
if [ -d "$SHARED_DIR/difftests" ]; then
  for t in "$SHARED_DIR"/difftests/*/trace.pb; do
    [ -f "$t" ] && cp "$t" "$SEEDS/difftest_$(basename "$(dirname "$t")").pb"
  done
fi

# pprof profiles and a StreamingProfilePacket trace, encoded from the text
# protos in tests/core/pprof by protoc (a cheap target).
if CCACHE_BASEDIR="$ROOT" cmake --build "$BUILD_DIR" --target core_pprof_test_data >/dev/null 2>&1; then
  for f in "$BUILD_DIR"/tests/core/pprof_data/*; do cp "$f" "$SEEDS/pprof_$(basename "$f")"; done
fi

# Inputs that once crashed the loader must keep loading cleanly.
REGRESSIONS="$ROOT/tests/fuzz/regressions"
if ls "$REGRESSIONS"/* >/dev/null 2>&1; then
  if ! ASAN_OPTIONS="detect_leaks=1" "$BUILD_DIR/bin/fathom_fuzz_trace" -rss_limit_mb=4096 \
       "$REGRESSIONS"/* >"$BUILD_DIR/regressions.log" 2>&1; then
    tail -n 25 "$BUILD_DIR/regressions.log"
    echo "fuzz.sh: FAILED on a saved regression input (tests/fuzz/regressions)" >&2
    exit 1
  fi
  echo "fuzz.sh: $(ls "$REGRESSIONS" | wc -l) regression input(s) load cleanly"
fi

echo "fuzz.sh: fuzzing for ${SECONDS_TO_RUN}s with $(ls "$SEEDS" | wc -l) seeds"
set +e
ASAN_OPTIONS="detect_leaks=1:abort_on_error=0" \
  "$BUILD_DIR/bin/fathom_fuzz_trace" \
  -seed=1 -max_total_time="$SECONDS_TO_RUN" -timeout=30 -rss_limit_mb=4096 -max_len=1048576 \
  -print_final_stats=1 -artifact_prefix="$ARTIFACTS/" \
  "$CORPUS" "$SEEDS" 2>"$BUILD_DIR/fuzz.log"
rc=$?
set -e
tail -n 25 "$BUILD_DIR/fuzz.log"
if [ $rc -ne 0 ]; then
  echo "fuzz.sh: FAILED (exit $rc); reproducer(s) in $ARTIFACTS/, log in $BUILD_DIR/fuzz.log" >&2
  exit 1
fi
echo "fuzz.sh: no crashes in ${SECONDS_TO_RUN}s"
