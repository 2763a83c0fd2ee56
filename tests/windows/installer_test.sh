#!/usr/bin/env bash
# The NSIS installer (cpack -G NSIS in build-win) under Wine: a silent install (/S)
# into a folder with a space; the installed fathom-cli.exe --version and a query of the
# installed sample trace; the Start menu entry; .perfetto-trace and .pftrace associated
# with the installed fathom.exe in the registry; the installed fathom.exe --screenshot of
# the sample on Xvfb (checked against the Linux build's as wine_gui_test.sh does); then a
# silent uninstall that leaves no file, shortcut or association behind.
# usage: installer_test.sh INSTALLER.exe STATE_DIR [LINUX_FATHOM]
# Exits 77 (skipped) without the installer or a Wine that can start it.
set -uo pipefail
INSTALLER=$1 STATE=$2 LGUI=${3:-}
[ -f "$INSTALLER" ] || { echo "skipped: no $INSTALLER (FATHOM_WIN_PACKAGE=1 scripts/windows/build.sh)"; exit 77; }
# packaging/Windows.cmake makes a 64-bit installer (NSIS's amd64-unicode stubs), which
# wine64 starts; a 32-bit one (CMake < 3.24 ignores the option) needs Debian's wine32.
if file -b "$INSTALLER" | grep -q 'PE32+'; then
  WINE=${WINE:-$(command -v wine64 || echo /usr/lib/wine/wine64)}
else
  WINE=${WINE:-$(command -v wine || { [ -x /usr/lib/wine/wine ] && echo /usr/lib/wine/wine; })}
fi
[ -n "$WINE" ] && [ -x "$WINE" ] || { echo "skipped: no Wine that starts $(file -b "$INSTALLER" | cut -d, -f1)"; exit 77; }
mkdir -p "$STATE"
STATE=$(cd "$STATE" && pwd)  # Wine wants an absolute WINEPREFIX
export WINEPREFIX=$STATE/wineprefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
export LC_ALL=C.UTF-8
[ -f "$WINEPREFIX/system.reg" ] || "$WINE" wineboot -i >/dev/null 2>&1
WORK=$(mktemp -d)
XPID=
cleanup() {
  [ -n "$XPID" ] && kill "$XPID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
FAILED=0 PASSED=0
fail() { echo "FAIL: $*"; FAILED=$((FAILED + 1)); }
ok() { PASSED=$((PASSED + 1)); }
reg_default() { "$WINE" reg query "$1" /ve 2>/dev/null | tr -d '\r' | sed -n 's/.*REG_SZ *//p'; }
start_menu_links() {
  find "$WINEPREFIX/drive_c/ProgramData/Microsoft/Windows/Start Menu" \
       "$WINEPREFIX/drive_c/users" -path '*Start Menu*' -iname 'Fathom*.lnk' 2>/dev/null
}

DEST='C:\Fathom Test'
UNIX_DEST="$WINEPREFIX/drive_c/Fathom Test"
rm -rf "$UNIX_DEST"
t0=$(date +%s)
# /D= must be last and unquoted (NSIS reads the raw command line to its end), but Wine
# quotes an argument that has a space: given word by word (DEST unquoted), Wine joins
# the words with spaces into `... /S /D=C:\Fathom Test`.
# shellcheck disable=SC2086
"$WINE" "$INSTALLER" /S /D=$DEST || { echo "FAIL: silent install exited $?"; exit 1; }
[ -f "$UNIX_DEST/bin/fathom-cli.exe" ] || { echo "FAIL: no bin/fathom-cli.exe under $UNIX_DEST"; exit 1; }
echo "installed in $(($(date +%s) - t0)) s: $(find "$UNIX_DEST" -type f | wc -l) files," \
     "$(du -sm "$UNIX_DEST" | cut -f1) MB"

out=$("$WINE" "$UNIX_DEST/bin/fathom-cli.exe" --version | tr -d '\r')
[[ "$out" == "fathom-cli "* ]] && ok || fail "installed fathom-cli --version: '$out'"
n=$("$WINE" "$UNIX_DEST/bin/fathom-cli.exe" query "$DEST\\share\\fathom\\sample\\sample.pftrace" \
    "select count(*) > 0 from slice" --format csv | tail -n1 | tr -d '\r')
[ "$n" = 1 ] && ok || fail "the installed sample trace did not load ($n)"

GUI=$UNIX_DEST/bin/fathom.exe
HAVE_GUI=0
if [ -f "$GUI" ]; then
  HAVE_GUI=1
  links=$(start_menu_links)
  [ -n "$links" ] && ok || fail "no Start menu entry for Fathom"
  echo "start menu: ${links#"$WINEPREFIX/drive_c/"}"
  for ext in .perfetto-trace .pftrace; do
    cls=$(reg_default "HKLM\\Software\\Classes\\$ext")
    [ "$cls" = Fathom.Trace ] && ok || fail "$ext is associated with '$cls', not Fathom.Trace"
  done
  cmd=$(reg_default 'HKLM\Software\Classes\Fathom.Trace\shell\open\command')
  [ "$cmd" = "\"$DEST\\bin\\fathom.exe\" \"%1\"" ] && ok || fail "Fathom.Trace opens with '$cmd'"
  echo "associations: .perfetto-trace, .pftrace -> $cmd"
  if command -v Xvfb >/dev/null; then
    DISPLAY_NUM=$((90 + RANDOM % 100))
    Xvfb ":$DISPLAY_NUM" -screen 0 1280x1024x24 >/dev/null 2>&1 &
    XPID=$!
    export DISPLAY=":$DISPLAY_NUM"
    sleep 1
    "$WINE" reg delete 'HKCU\Software\Fathom' /f >/dev/null 2>&1
    shot="$WORK/installed timeline.png"
    if timeout 300 "$WINE" "$GUI" --screenshot "$shot" \
         --size 1024x700 --view timeline "$DEST\\share\\fathom\\sample\\sample.pftrace" \
         >"$WORK/gui.log" 2>&1 && [ -s "$shot" ]; then
      if [ -n "$LGUI" ] && [ -x "$LGUI" ]; then
        QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME="$WORK/config" timeout 120 "$LGUI" \
          --screenshot "$WORK/linux.png" --size 1024x700 --view timeline \
          "$UNIX_DEST/share/fathom/sample/sample.pftrace" >/dev/null 2>&1
        if verdict=$(python3 "$(dirname "$0")/png_compare.py" "$shot" "$WORK/linux.png" 1024 700); then
          ok; echo "installed fathom.exe --screenshot: $verdict"
        else fail "installed fathom.exe --screenshot: $verdict"; fi
      else
        ok; echo "installed fathom.exe --screenshot: $(stat -c %s "$shot") bytes (no Linux build to compare)"
      fi
      [ -n "${KEEP_SHOTS:-}" ] && cp "$shot" "$KEEP_SHOTS/"
    else
      fail "installed fathom.exe --screenshot: $(tr -d '\r' <"$WORK/gui.log" | tail -3)"
    fi
  else
    echo "no Xvfb: installed fathom.exe not started"
  fi
fi

# The uninstaller copies itself to %TEMP% and returns at once unless _?= names the folder
# (unquoted like /D= above).
# shellcheck disable=SC2086
"$WINE" "$UNIX_DEST/Uninstall.exe" /S _?=$DEST || fail "silent uninstall exited $?"
rm -f "$UNIX_DEST/Uninstall.exe"  # with _?= the uninstaller cannot delete itself
left=$(find "$UNIX_DEST" -type f 2>/dev/null | head -3)
[ -z "$left" ] && ok || fail "left behind: $left"
if [ "$HAVE_GUI" = 1 ]; then
  [ -z "$(start_menu_links)" ] && ok || fail "Start menu entry left: $(start_menu_links)"
  for key in .perfetto-trace .pftrace Fathom.Trace; do
    "$WINE" reg query "HKLM\\Software\\Classes\\$key" >/dev/null 2>&1 &&
      fail "HKLM\\Software\\Classes\\$key left in the registry" || ok
  done
fi
echo "uninstalled: nothing left in $DEST"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
