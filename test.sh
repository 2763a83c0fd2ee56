#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test with ctest (GUI tests
# offscreen). CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")"
./scripts/setup-deps.sh
# Windows cross build first (only with its dependency cache; one line otherwise), so
# the Linux configure below registers its Wine test.
./scripts/windows/ci.sh
./scripts/build.sh
export QT_QPA_PLATFORM=offscreen
ctest --test-dir build --output-on-failure -j "$(nproc)"
# ASan+UBSan build of core_tests/adb_tests, then every fuzz target briefly;
# both share build-fuzz and skip without clang.
./scripts/sanitize.sh
./scripts/fuzz.sh
