#!/usr/bin/env bash
# `fathom-cli.exe record` (the mingw-w64 cross build) under Wine, of the Linux target that
# fathom-test-adbd on 127.0.0.1 stands for (its device is this machine; the recorder
# pushed is the Linux build's):
#  1. with no %USERPROFILE%\.android, against a double that takes any key: the record
#     works, and adbkey/adbkey.pub are created there (where Google's adb keeps them);
#  2. with the key a Linux fathom-cli made copied into %USERPROFILE%\.android, against
#     a double that trusts that key only: the record works (the key was read and used to
#     sign) and adbkey is left as it was.
# Each writes to a C:\ path with spaces and non-ASCII letters; the pulled trace loads
# (`fathom-cli.exe info` says what Linux `info` says of it, `query` finds the recorder's
# process and memory counters) and nothing is left on the target.
# usage: wine_record_test.sh LINUX_CLI WINDOWS_CLI ADBD DEVICE_DIR STATE_DIR
# STATE_DIR keeps the Wine prefix between runs. Exits 77 (skipped) without the .exe or Wine.
set -uo pipefail
LCLI=$1 WCLI=$2 ADBD=$3 DEVICE_DIR=$4 STATE=$5
[ -x "$DEVICE_DIR/fathom-recorder" ] || { echo "skipped: no $DEVICE_DIR/fathom-recorder"; exit 77; }
# shellcheck source=wine_adb_env.sh
source "$(dirname "$0")/wine_adb_env.sh"
ok() { PASSED=$((PASSED + 1)); }

if [ ! -f "$WINEPREFIX/system.reg" ]; then
  "$WINE" wineboot -i >/dev/null 2>&1 || { echo "FAIL: wineboot"; exit 1; }
fi
win() { "$WINE" "$WCLI" "$@"; }
winpath() { "$WINE" winepath -w "$1" 2>/dev/null | tr -d '\r'; }
# The recorder comes from the Linux build (a Windows path to it, as a user would give).
export FATHOM_DEVICE_DIR
FATHOM_DEVICE_DIR=$(winpath "$DEVICE_DIR")

start_adbd() {  # options...; sets PORT
  "$ADBD" "$@" >"$WORK/adbd.out" 2>&1 &
  PIDS+=($!)
  PORT=
  for _ in $(seq 300); do grep -q listening "$WORK/adbd.out" && break; sleep 0.1; done
  PORT=$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/adbd.out")
  [ -n "$PORT" ] || { echo "FAIL: fathom-test-adbd did not start"; exit 1; }
}

WIN_DIR="$WINEPREFIX/drive_c/Fathom records/Trace ümlaut 日本"
CWIN='C:\Fathom records\Trace ümlaut 日本'
mkdir -p "$WIN_DIR"

# record LABEL FILE_NAME: records 2 s of the memory preset into $CWIN\FILE_NAME and checks
# the log, the target's temporary directory and the pulled trace.
record() {
  local label=$1 name=$2 log="$WORK/$1.log" t0 n
  t0=$(date +%s.%N)
  if ! timeout 120 "$WINE" "$WCLI" record -s "127.0.0.1:$PORT" --preset memory --time 2s \
       -o "$CWIN\\$name" </dev/null >"$log" 2>&1; then
    fail "$label: record failed: $(tr -d '\r' <"$log" | tail -5)"
    return
  fi
  echo "$label: recorded in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
  grep -q "Linux" "$log" && grep -q "adb, direct" "$log" && ok ||
    fail "$label: not a direct adb record of a Linux target: $(tr -d '\r' <"$log" | head -5)"
  local dir
  dir=$(tr -d '\r' <"$log" | sed -n 's|^Removed \(/tmp/fathom\.[^ ]*\) from the target$|\1|p')
  if [ -n "$dir" ] && [ ! -e "$dir" ]; then ok; else
    fail "$label: the target's directory '$dir' is not said to be removed, or is left"; fi
  local unix="$WIN_DIR/$name"
  [ -s "$unix" ] && [ -z "$(find "$WIN_DIR" -name '*.part*')" ] && ok ||
    fail "$label: no trace at $unix, or a .part left: $(ls "$WIN_DIR")"
  # Loadable: Windows `info` on the C:\ path says what Linux `info` says (bar the path line).
  win info "$CWIN\\$name" 2>"$WORK/w.err" | tr -d '\r' >"$WORK/w.info"
  "$LCLI" info "$unix" 2>/dev/null >"$WORK/l.info"
  if [ "$(head -1 "$WORK/w.info")" = "trace:     $CWIN\\$name" ] &&
     diff <(tail -n +2 "$WORK/l.info") <(tail -n +2 "$WORK/w.info") >/dev/null; then ok; else
    fail "$label: info differs: $(diff "$WORK/l.info" "$WORK/w.info" | head -5) $(head -c 300 "$WORK/w.err")"
  fi
  n=$(win query "$CWIN\\$name" "select (select count(*) from process_counter_track) > 0 and (select count(*) from process where name like '%fathom-recorder%') > 0" --format csv | tail -1 | tr -d '\r')
  [ "$n" = 1 ] && ok || fail "$label: no process counters or no recorder process in the trace ($n)"
  echo "$label: $(stat -c %s "$unix") bytes at $CWIN\\$name"
}

USERPROFILE_UNIX=$("$WINE" winepath -u "$("$WINE" cmd /c 'echo %USERPROFILE%' | tr -d '\r')" | tr -d '\r')
KEYDIR="$USERPROFILE_UNIX/.android"

# --- 1. No key yet: made in %USERPROFILE%\.android.
rm -rf "$KEYDIR"
start_adbd --allow-any-key
record "new key" "memory trace é.pftrace"
if grep -q 'PRIVATE KEY' "$KEYDIR/adbkey" 2>/dev/null && [ -s "$KEYDIR/adbkey.pub" ]; then ok; else
  fail "no adbkey/adbkey.pub in %USERPROFILE%\\.android ($KEYDIR)"; fi

# --- 2. A key made on Linux, copied over: the only one the double trusts.
mkdir -p "$WORK/home"
HOME=$WORK/home "$LCLI" shell -s "127.0.0.1:$PORT" --transport tcp true </dev/null >/dev/null 2>&1 ||
  fail "the Linux fathom-cli did not make a key"
cp "$WORK/home/.android/adbkey" "$WORK/home/.android/adbkey.pub" "$KEYDIR/"
sum=$(sha256sum <"$KEYDIR/adbkey")
start_adbd --trust "$WORK/home/.android/adbkey.pub"
record "Linux key" "mémoire 2.pftrace"
[ "$(sha256sum <"$KEYDIR/adbkey")" = "$sum" ] && ok || fail "%USERPROFILE%\\.android\\adbkey was rewritten"

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
