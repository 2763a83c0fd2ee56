# Sourced by the Wine tests that talk to the adb test double (wine_cli_test.sh,
# wine_record_test.sh) once WCLI (the .exe) and STATE are set: skips (exit 77)
# without the .exe or Wine; the Wine prefix kept in STATE between runs, Wine
# quiet and without Mono/Gecko prompts, arguments decoded as UTF-8, and no adb
# setting of the developer's reaching the exe (its own server port, never a
# running server's); a WORK folder and the PIDS started, both cleaned up on
# exit; fail() and the FAILED/PASSED counts.
WINE=${WINE:-$(command -v wine64 || command -v wine || echo /usr/lib/wine/wine64)}
[ -f "$WCLI" ] || { echo "skipped: $WCLI not built (scripts/windows/build.sh)"; exit 77; }
[ -x "$WINE" ] || { echo "skipped: no Wine (apt-get install wine64)"; exit 77; }
mkdir -p "$STATE"
STATE=$(cd "$STATE" && pwd)  # Wine wants an absolute WINEPREFIX
export WINEPREFIX=$STATE/wineprefix WINEDEBUG=-all
export WINEDLLOVERRIDES="mscoree,mshtml="  # no Mono/Gecko install prompts
export LC_ALL=C.UTF-8                        # Wine decodes arguments with the locale
unset ANDROID_SERIAL ANDROID_USER_HOME ADB_SERVER_SOCKET ADB_VENDOR_KEYS
export ANDROID_ADB_SERVER_PORT=$((20000 + RANDOM % 20000))
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$WORK" "${WIN_DIR:-/nonexistent}"
}
trap cleanup EXIT
FAILED=0 PASSED=0
fail() { echo "FAIL: $*"; FAILED=$((FAILED + 1)); }
