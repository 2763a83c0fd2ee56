#!/usr/bin/env bash
# Builds core_tests, core_pprof_tests and adb_tests with ASan + UBSan (in
# build-fuzz, sharing the instrumented libraries with scripts/fuzz.sh) and
# runs them through ctest. Any sanitizer report fails its test: UBSan halts
# on the first error, ASan on every error, LeakSanitizer at exit.
#
#   scripts/sanitize.sh            build and run (CI runs this from test.sh)
#   SANITIZE_JOBS=N                parallel tests (default: nproc)
#
# Tests left out are listed in EXCLUDE below with the reason. Skips (exit 0)
# without clang++ (see scripts/sanitizer-build.sh).
set -euo pipefail
source "$(dirname "$0")/sanitizer-build.sh"
cd "$ROOT"

san_have_clang sanitize.sh || exit 0
start=$(date +%s)
san_configure
san_build core_tests core_pprof_tests adb_tests
built=$(date +%s)

# Regexes of ctest names not run here, each with its reason.
EXCLUDE=(
  '_NOT_BUILT$'   # gtest targets of other suites, not built in this tree
  # Asserts on peak RSS; ASan's quarantine holds freed blocks and its shadow
  # memory grows with the heap, so RSS cannot show the old copy being freed.
  'ColumnVectorTest\.GrowingALargeBlockNeverHoldsTwoCopies$'
)
exclude_re="$(IFS='|'; echo "${EXCLUDE[*]}")"

rc=0
for dir in tests/core tests/adb; do
  # Only the suites built above: the ctest tree also lists scripts that need
  # the GUI, fathom-cli or the device programs, which build-fuzz does not build.
  ctest --test-dir "$BUILD_DIR/$dir" -j "${SANITIZE_JOBS:-$(nproc)}" --output-on-failure \
    -R '^(adb\.|[A-Z])' -E "$exclude_re|^symbols\." || rc=1
done
end=$(date +%s)
echo "sanitize.sh: build $((built - start)) s, tests $((end - built)) s"
if [ $rc -ne 0 ]; then
  echo "sanitize.sh: FAILED (a test failed or a sanitizer reported; see above)" >&2
  exit 1
fi
echo "sanitize.sh: core and adb tests pass under ASan + UBSan"
