#!/usr/bin/env bash
# fathom-cli.exe (the mingw-w64 cross build) under Wine against the Linux build:
#  1. `info` and `query` on every trace in the shared testdata, and on a text trace
#     with CRLF line ends, give byte-for-byte the Linux build's output;
#  2. paths with spaces, non-ASCII characters and a drive letter open and export;
#  3. against fathom-test-adbd on 127.0.0.1: shell (exit code, stdout/stderr), push and
#     pull of a 64 MiB file compared with cmp, the adb key created in
#     %USERPROFILE%\.android\adbkey; push/pull throughput next to the Linux build's.
# usage: wine_cli_test.sh LINUX_CLI WINDOWS_CLI ADBD TESTDATA STATE_DIR
# STATE_DIR keeps the Wine prefix between runs (its first start takes ~30 s).
# Exits 77 (skipped) when the .exe or Wine is missing.
set -uo pipefail
LCLI=$1 WCLI=$2 ADBD=$3 DATA=$4 STATE=$5
# shellcheck source=wine_adb_env.sh
source "$(dirname "$0")/wine_adb_env.sh"
ok() { PASSED=$((PASSED + 1)); }

mkdir -p "$STATE"
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  "$WINE" wineboot -i >/dev/null 2>&1 || { echo "FAIL: wineboot"; exit 1; }
fi
win() { "$WINE" "$WCLI" "$@"; }
winpath() { "$WINE" winepath -w "$1" 2>/dev/null | tr -d '\r'; }

# Same bytes on stdout and the same exit code from both builds. Both get the same
# path string (`info` prints it): Windows resolves "/work/x" on the current drive,
# Wine's Z: (the Unix root); drive letters are tested in part 2.
compare() {  # label, trace, args after the trace...
  local label=$1 trace=$2 lcode wcode
  shift 2
  "$LCLI" "${CMD[@]}" "$trace" "$@" >"$WORK/l.out" 2>/dev/null; lcode=$?
  win "${CMD[@]}" "$trace" "$@" >"$WORK/w.out" 2>"$WORK/w.err"; wcode=$?
  if [ "$lcode" != "$wcode" ]; then
    fail "$label: exit code $wcode on Windows, $lcode on Linux ($(head -c 300 "$WORK/w.err"))"
  elif ! cmp -s "$WORK/l.out" "$WORK/w.out"; then
    fail "$label: output differs: $(diff "$WORK/l.out" "$WORK/w.out" | head -5)"
  else
    ok
  fi
}

QUERIES=(
  "select count(*) as n from slice"
  "select ts, dur, name, depth from slice order by ts, id limit 300"
  "select utid, tid, name from thread order by utid"
  "select ts, dur, cpu, utid, end_state from sched order by ts, cpu limit 300"
  "select id, ts, value from counter order by id limit 300"
)

# --- 1. Every shared trace, and a CRLF text trace.
traces=()
for f in "$DATA"/*; do
  [ -f "$f" ] && [ "$(basename "$f")" != README.md ] && traces+=("$f")
done
sed 's/$/\r/' "$DATA/systrace_android.txt" >"$WORK/systrace_crlf.txt"
traces+=("$WORK/systrace_crlf.txt")
for t in "${traces[@]}"; do
  name=$(basename "$t")
  CMD=(info); compare "info $name" "$t"
  CMD=(query)
  for q in "${QUERIES[@]}"; do compare "query $name: $q" "$t" "$q"; done
  compare "query --format csv $name" "$t" "select * from process order by upid" --format csv
  compare "query --format json $name" "$t" "select * from track order by id limit 100" --format json
done
echo "answers: $PASSED of $((PASSED + FAILED)) info/query outputs identical on ${#traces[@]} traces"

# --- 2. Paths with spaces, non-ASCII characters and a drive letter (C: is the prefix's).
WIN_DIR="$WINEPREFIX/drive_c/Fathom tests/Trace ümlaut 日本"
mkdir -p "$WIN_DIR"
sample="$DATA/linux_compact_sched_perf_samples.pftrace"
cp "$sample" "$WIN_DIR/perf samples.pftrace"
CWIN='C:\Fathom tests\Trace ümlaut 日本'
win query "$CWIN\\perf samples.pftrace" "select count(*) from sched" >"$WORK/w.out" 2>"$WORK/w.err"
"$LCLI" query "$sample" "select count(*) from sched" >"$WORK/l.out" 2>/dev/null
if cmp -s "$WORK/l.out" "$WORK/w.out"; then ok; else
  fail "open via $CWIN: $(head -c 300 "$WORK/w.err")"; fi
win flamegraph "$CWIN\\perf samples.pftrace" --format folded -o "$CWIN\\export ö.folded" \
  >/dev/null 2>"$WORK/w.err"
"$LCLI" flamegraph "$sample" --format folded -o "$WORK/l.folded" >/dev/null 2>&1
if [ -f "$WIN_DIR/export ö.folded" ] && cmp -s "$WORK/l.folded" "$WIN_DIR/export ö.folded"; then
  ok; else fail "export to $CWIN: $(head -c 300 "$WORK/w.err")"; fi
win flamegraph "$CWIN\\perf samples.pftrace" --format svg -o "$CWIN\\flame ö.svg" \
  >/dev/null 2>"$WORK/w.err"
"$LCLI" flamegraph "$sample" --format svg -o "$WORK/l.svg" >/dev/null 2>&1
if cmp -s "$WORK/l.svg" "$WIN_DIR/flame ö.svg"; then ok; else
  fail "svg export to $CWIN differs: $(head -c 300 "$WORK/w.err")"; fi
echo "paths: open and export under '$CWIN' checked"

# --- 3. adb against the double. The device side is this Linux machine (Unix paths).
"$ADBD" --allow-any-key >"$WORK/adbd.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 300); do grep -q listening "$WORK/adbd.out" && break; sleep 0.1; done
PORT=$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/adbd.out")
if [ -z "$PORT" ]; then
  fail "fathom-test-adbd did not start"
else
  S=(-s "127.0.0.1:$PORT" --transport tcp)
  USERPROFILE_UNIX=$("$WINE" winepath -u "$("$WINE" cmd /c 'echo %USERPROFILE%' | tr -d '\r')" | tr -d '\r')
  rm -f "$USERPROFILE_UNIX/.android/adbkey"
  win shell "${S[@]}" 'echo to-out; echo to-err >&2; exit 7' >"$WORK/o" 2>"$WORK/e" </dev/null
  code=$?
  if [ "$code" = 7 ] && [ "$(cat "$WORK/o")" = to-out ] && grep -q to-err "$WORK/e"; then ok; else
    fail "shell: code $code, out '$(cat "$WORK/o")', err '$(head -c 300 "$WORK/e")'"; fi
  if [ -s "$USERPROFILE_UNIX/.android/adbkey" ] && grep -q 'PRIVATE KEY' "$USERPROFILE_UNIX/.android/adbkey"; then
    ok; else fail "no adb key in %USERPROFILE%\\.android\\adbkey ($USERPROFILE_UNIX)"; fi
  head -c $((64 << 20)) /dev/urandom >"$WORK/big"
  mkdir -p "$WORK/dev" "$WORK/back"
  WBIG=$(winpath "$WORK/big") WBACK=$(winpath "$WORK/back")
  t0=$(date +%s.%N)
  win push "${S[@]}" "$WBIG" "$WORK/dev/big.win" </dev/null >/dev/null 2>"$WORK/e" || fail "push: $(head -c 300 "$WORK/e")"
  t1=$(date +%s.%N)
  win pull "${S[@]}" "$WORK/dev/big.win" "$WBACK\\big.win" </dev/null >/dev/null 2>"$WORK/e" || fail "pull: $(head -c 300 "$WORK/e")"
  t2=$(date +%s.%N)
  "$LCLI" push "${S[@]}" "$WORK/big" "$WORK/dev/big.linux" </dev/null >/dev/null 2>&1 || fail "linux push"
  t3=$(date +%s.%N)
  "$LCLI" pull "${S[@]}" "$WORK/dev/big.linux" "$WORK/back/big.linux" </dev/null >/dev/null 2>&1 || fail "linux pull"
  t4=$(date +%s.%N)
  for f in dev/big.win back/big.win; do
    if cmp -s "$WORK/big" "$WORK/$f"; then ok; else fail "64 MiB $f differs from the original"; fi
  done
  mbs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f MB/s", 67.108864 / (b - a) }'; }
  echo "throughput (64 MiB, fathom-test-adbd on 127.0.0.1): Windows push $(mbs "$t0" "$t1")," \
       "pull $(mbs "$t1" "$t2") (wall time incl. Wine start); Linux push $(mbs "$t2" "$t3"), pull $(mbs "$t3" "$t4")"
fi

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
