#!/usr/bin/env bash
# End-to-end checks of fathom-cli as a user runs it: exit codes, the one-line
# errors, and the upstream-compatible CSV output.
set -u
CLI="$1"
SHARED="$2"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
pass=0
check() {  # check NAME CONDITION-RESULT
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else echo "FAIL: $1"; fail=$((fail + 1)); fi
}

# --version and usage.
"$CLI" --version | grep -q '^fathom-cli ' ; check "--version prints the version" $?
"$CLI" >/dev/null 2>&1; [ $? -eq 2 ]; check "no arguments is a usage error (exit 2)" $?

# info on a real trace.
TRACE="$SHARED/testdata/android_sched_binder_10s.perfetto-trace"
out=$("$CLI" info "$TRACE"); rc=$?
check "info exits 0" $rc
echo "$out" | grep -q 'format: *perfetto protobuf'; check "info names the format" $?
echo "$out" | grep -q 'packets'; check "info prints packet counts" $?

# query: CSV is upstream's diff-test form.
csv=$("$CLI" query "$SHARED/difftests/synth_1_trace_bounds/trace.pb" "select 1 as a, 'x' as b, null as c, 2.5 as d" --format csv)
[ "$csv" = $'"a","b","c","d"\n1,"x","[NULL]",2.500000' ]; check "csv form" $?
printf 'select 7 as seven;' > "$TMP/q.sql"
csv=$("$CLI" query "$SHARED/difftests/synth_1_trace_bounds/trace.pb" -f "$TMP/q.sql" --format csv)
[ "$csv" = $'"seven"\n7' ]; check "query -f FILE" $?
json=$("$CLI" query "$SHARED/difftests/synth_1_trace_bounds/trace.pb" "select 1 as a" --format json)
echo "$json" | grep -q '"a": 1'; check "json output" $?

# Errors: exit != 0 and one line naming the file (and offset where relevant).
err=$("$CLI" info "$TMP/missing.pftrace" 2>&1 >/dev/null); rc=$?
[ $rc -ne 0 ] && echo "$err" | grep -q "missing.pftrace"; check "missing file: error names the file" $?
[ "$(echo "$err" | wc -l)" -eq 1 ]; check "missing file: one line" $?
: > "$TMP/empty.pftrace"
err=$("$CLI" query "$TMP/empty.pftrace" "select count(*) from slice" --format csv 2>&1 >"$TMP/empty.out"); rc=$?
[ $rc -eq 0 ] && echo "$err" | grep -q "empty.pftrace: byte offset 0: the file is empty" &&
  [ "$(cat "$TMP/empty.out")" = $'"count(*)"\n0' ]; check "empty file: an empty trace, warned with offset" $?
head -c 4096 /dev/urandom | tr '\n' 'x' | sed 's/^./\x7f/' > "$TMP/random.bin"
err=$("$CLI" info "$TMP/random.bin" 2>&1 >/dev/null); rc=$?
[ $rc -ne 0 ] && echo "$err" | grep -q "random.bin"; check "random bytes: clear error" $?
err=$("$CLI" query "$SHARED/difftests/synth_1_trace_bounds/trace.pb" "select * from no_such_table" 2>&1 >/dev/null); rc=$?
[ $rc -ne 0 ] && echo "$err" | grep -q "no such table"; check "bad SQL: error and exit != 0" $?

# A truncated real trace loads what it can, warns with the offset, exits 0.
head -c 1000000 "$TRACE" > "$TMP/cut.pftrace"
out=$("$CLI" info "$TMP/cut.pftrace" 2>"$TMP/err"); rc=$?
check "truncated trace still loads (exit 0)" $rc
grep -q "cut.pftrace: byte offset [0-9]*: trace is truncated" "$TMP/err"; check "truncated trace: warning with offset" $?

# Terminal escapes in an archive member name (a hostile file) are shown, not
# obeyed: no ESC byte reaches the terminal, the name appears escaped.
ESC_ZIP="$SHARED/reliability/escape_member.zip"
if [ -f "$ESC_ZIP" ]; then
  out=$("$CLI" info "$ESC_ZIP" 2>&1)
  ! printf '%s' "$out" | grep -q $'\x1b'; check "escape_member.zip: no ESC byte reaches the terminal" $?
  printf '%s' "$out" | grep -qF 'evil\x1b]0;PWNED-TITLE\x07\x1b[2J\x1b[31mred.pb'
  check "escape_member.zip: the member name is shown escaped" $?
fi
# Load limits (README "Limits and safety"): each stop is a warning naming the
# flag that raises it, and the flag works wherever it stands.
REL="$SHARED/reliability"
if [ -f "$REL/gzip_bomb_512m_emptypackets.pftrace.gz" ]; then
  "$CLI" info "$REL/gzip_bomb_512m_emptypackets.pftrace.gz" >/dev/null 2>"$TMP/err"
  check "gzip bomb loads what came before the limit (exit 0)" $?
  grep -q "byte offset [0-9]*: compressed data expands past the limit.*--max-inflate-ratio" "$TMP/err"
  check "gzip bomb: the limit is named with its offset and flag" $?
  "$CLI" info --max-inflate-ratio 2000 "$REL/gzip_bomb_512m_emptypackets.pftrace.gz" >/dev/null 2>"$TMP/err"
  ! grep -q "expands past the limit" "$TMP/err"; check "--max-inflate-ratio raises the limit" $?
  err=$("$CLI" info "$REL/zip_nested_200.zip" --max-archive-depth 10 2>&1 >/dev/null); rc=$?
  [ $rc -ne 0 ] && echo "$err" | grep -q "nested 11 deep.*--max-archive-depth"
  check "--max-archive-depth stops nesting and says so" $?
  "$CLI" info "$REL/zip_nested_200.zip" >/dev/null 2>&1; check "200 nested zips load by default" $?
  "$CLI" info --max-inflate-ratio x "$TRACE" >/dev/null 2>&1; [ $? -eq 2 ]
  check "a limit flag without a number is a usage error" $?
fi
# query: a table is for reading (escaped); csv and json are data (byte exact).
ESC_SQL="select char(27) || '[31mx' as s"
out=$("$CLI" query "$SHARED/difftests/synth_1_trace_bounds/trace.pb" "$ESC_SQL")
! printf '%s' "$out" | grep -q $'\x1b' && printf '%s' "$out" | grep -qF '\x1b[31mx'
check "query table: ESC shown escaped" $?
csv=$("$CLI" query "$SHARED/difftests/synth_1_trace_bounds/trace.pb" "$ESC_SQL" --format csv)
[ "$csv" = $'"s"\n"\x1b[31mx"' ]; check "query csv: bytes exact" $?
json=$("$CLI" query "$SHARED/difftests/synth_1_trace_bounds/trace.pb" "$ESC_SQL" --format json)
! printf '%s' "$json" | grep -qF '\x1b'; check "query json: not escaped by the terminal filter" $?

# devices: the adb server (Debian's adb, on a private port and HOME) and USB.
if "$CLI" devices --help >/dev/null 2>&1 || "$CLI" 2>&1 | grep -q devices; then
  port=$((20000 + RANDOM % 20000))
  out=$(ANDROID_ADB_SERVER_PORT=$port "$CLI" devices); rc=$?
  [ $rc -eq 0 ] && echo "$out" | grep -q "127.0.0.1:$port: not reachable"; check "devices: no server is reported, not fatal" $?
  echo "$out" | grep -q '^usb: '; check "devices: USB line" $?
  if command -v adb >/dev/null 2>&1; then
    home="$TMP/adbhome"; mkdir -p "$home"
    if HOME="$home" ANDROID_ADB_SERVER_PORT=$port adb start-server >/dev/null 2>&1; then
      out=$(HOME="$home" ANDROID_ADB_SERVER_PORT=$port "$CLI" devices)
      echo "$out" | grep -q "127.0.0.1:$port: 0 devices"; check "devices: real adb server answers host:devices-l" $?
      HOME="$home" ANDROID_ADB_SERVER_PORT=$port adb kill-server >/dev/null 2>&1
    fi
  fi
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
