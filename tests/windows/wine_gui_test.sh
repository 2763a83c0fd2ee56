#!/usr/bin/env bash
# fathom.exe (the mingw-w64 build with Qt, FATHOM_WIN_GUI=1 scripts/windows/build.sh)
# under Wine on Xvfb: --screenshot of a trace's timeline and flamegraph, into (and
# from) a folder whose name has a space and non-ASCII letters. Each image must be a PNG
# of the size asked, drawn (many colours, not one background), and close to the
# Linux build's screenshot of the same view: the same layout, where only the
# fonts and their rendering differ.
# usage: wine_gui_test.sh LINUX_FATHOM WINDOWS_FATHOM TRACE STATE_DIR
# Exits 77 (skipped) when the .exe, Wine or Xvfb is missing.
set -uo pipefail
LGUI=$1 WGUI=$2 TRACE=$3 STATE=$4
WINE=${WINE:-$(command -v wine64 || command -v wine || echo /usr/lib/wine/wine64)}
[ -f "$WGUI" ] || { echo "skipped: $WGUI not built (FATHOM_WIN_GUI=1 scripts/windows/build.sh)"; exit 77; }
[ -x "$WINE" ] || { echo "skipped: no Wine (apt-get install wine64)"; exit 77; }
command -v Xvfb >/dev/null || { echo "skipped: no Xvfb"; exit 77; }
mkdir -p "$STATE"
STATE=$(cd "$STATE" && pwd)
export WINEPREFIX=$STATE/wineprefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
export LC_ALL=C.UTF-8
WORK=$(mktemp -d)
XPID=
cleanup() {
  [ -n "$XPID" ] && kill "$XPID" 2>/dev/null
  [ -n "${KEEP_SHOTS:-}" ] && cp -r "$WORK" "$KEEP_SHOTS"
  rm -rf "$WORK"
}
trap cleanup EXIT
FAILED=0
fail() { echo "FAIL: $*"; FAILED=$((FAILED + 1)); }

if [ ! -f "$WINEPREFIX/system.reg" ]; then
  "$WINE" wineboot -i >/dev/null 2>&1 || { echo "FAIL: wineboot"; exit 1; }
fi
DISPLAY_NUM=$((90 + RANDOM % 100))
Xvfb ":$DISPLAY_NUM" -screen 0 1280x1024x24 >/dev/null 2>&1 &
XPID=$!
export DISPLAY=":$DISPLAY_NUM"
sleep 1

OUT="$WORK/shots ü ñ"
mkdir -p "$OUT"
# fathom.exe opens the trace from there too (non-ASCII path through the loader).
cp "$TRACE" "$OUT/trace é.pftrace"
for view in timeline flamegraph; do
  win="$OUT/windows $view.png" lin="$WORK/linux_$view.png"
  # Both start from no remembered settings (panels, recent files): a fresh
  # config folder here, the registry key removed there.
  QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME="$WORK/config" timeout 120 "$LGUI" --screenshot "$lin" --size 1024x700 \
    --view "$view" "$TRACE" >"$WORK/linux.log" 2>&1 ||
    { fail "Linux fathom --screenshot --view $view: $(tail -3 "$WORK/linux.log")"; continue; }
  "$WINE" reg delete 'HKCU\Software\Fathom' /f >/dev/null 2>&1
  start=$(date +%s%N)
  timeout 300 "$WINE" "$WGUI" --screenshot "$win" --size 1024x700 --view "$view" "$OUT/trace é.pftrace" \
    >"$WORK/wine.log" 2>&1 ||
    { fail "fathom.exe --screenshot --view $view: $(tail -3 "$WORK/wine.log")"; continue; }
  took=$((($(date +%s%N) - start) / 1000000))
  if ! verdict=$(python3 "$(dirname "$0")/png_compare.py" "$win" "$lin" 1024 700); then
    fail "$view: $verdict"
  else
    echo "$view: fathom.exe drew it in $took ms under Wine; $verdict"
  fi
done
[ "$FAILED" = 0 ] || { echo "$FAILED failure(s)"; exit 1; }
echo "fathom.exe screenshots drawn as on Linux"
