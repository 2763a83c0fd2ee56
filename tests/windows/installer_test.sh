#!/usr/bin/env bash
# The NSIS installer (cpack -G NSIS in build-win) under Wine: a silent install
# (/S) into a folder with a space, the installed fathom-cli.exe --version and a
# query of the installed sample trace, then a silent uninstall that leaves
# nothing behind. usage: installer_test.sh INSTALLER.exe STATE_DIR
# Exits 77 (skipped) without the installer or Wine.
set -uo pipefail
INSTALLER=$1 STATE=$2
# NSIS's installer stub is a 32-bit program: wine64 alone cannot start it; Debian's
# wine32 (i386 architecture) provides the 32-bit loader.
WINE=${WINE:-$(command -v wine || { [ -x /usr/lib/wine/wine ] && echo /usr/lib/wine/wine; })}
[ -f "$INSTALLER" ] || { echo "skipped: no $INSTALLER (cd build-win && cpack -G NSIS)"; exit 77; }
[ -n "$WINE" ] && [ -x "$WINE" ] || {
  echo "skipped: the installer is 32-bit and this Wine runs 64-bit programs only (wine32)"; exit 77; }
mkdir -p "$STATE"
STATE=$(cd "$STATE" && pwd)  # Wine wants an absolute WINEPREFIX
export WINEPREFIX=$STATE/wineprefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
[ -f "$WINEPREFIX/system.reg" ] || "$WINE" wineboot -i >/dev/null 2>&1
fail() { echo "FAIL: $*"; exit 1; }
DEST='C:\Fathom Test'
UNIX_DEST="$WINEPREFIX/drive_c/Fathom Test"
rm -rf "$UNIX_DEST"
# /D= must be last and unquoted (NSIS's rule).
"$WINE" "$INSTALLER" /S "/D=$DEST" || fail "silent install exited $?"
[ -f "$UNIX_DEST/bin/fathom-cli.exe" ] || fail "no bin/fathom-cli.exe under $UNIX_DEST"
out=$("$WINE" "$UNIX_DEST/bin/fathom-cli.exe" --version | tr -d '\r')
[[ "$out" == "fathom-cli "* ]] || fail "installed fathom-cli --version: '$out'"
n=$("$WINE" "$UNIX_DEST/bin/fathom-cli.exe" query "$DEST\\share\\fathom\\sample\\sample.pftrace" \
    "select count(*) > 0 from slice" --format csv | tail -n1 | tr -d '\r')
[ "$n" = 1 ] || fail "the installed sample trace did not load ($n)"
echo "installed: $out, sample trace loads"
# The uninstaller copies itself to %TEMP% and returns at once unless _?= names the folder.
"$WINE" "$UNIX_DEST/Uninstall.exe" /S "_?=$DEST" || fail "silent uninstall exited $?"
rm -f "$UNIX_DEST/Uninstall.exe"  # with _?= the uninstaller cannot delete itself
[ -z "$(find "$UNIX_DEST" -type f 2>/dev/null)" ] || fail "left behind: $(find "$UNIX_DEST" -type f | head)"
echo "uninstalled: nothing left in $DEST"
echo "1 passed, 0 failed"
