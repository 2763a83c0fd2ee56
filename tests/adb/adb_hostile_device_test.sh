#!/usr/bin/env bash
# fathom-cli against every mode of `fathom-test-adbd --misbehave MODE` (QA's hostile_adbd.py
# modes in C++): each command must end (well before ctest's timeout) with the expected
# result and error text, small deadlines set through the flags (and once through the
# environment), and a pull must leave nothing but its destination: no temporary files, no
# file outside it, and the destination's parent still 0700.
#   adb_hostile_device_test.sh FATHOM_CLI FATHOM_TEST_ADBD [MODE...]
set -uo pipefail
CLI=$1 ADBD=$2
shift 2
WORK=$(mktemp -d)
ADBD_PID=
cleanup() {
  [ -n "$ADBD_PID" ] && kill "$ADBD_PID" 2>/dev/null
  chmod -R u+rwx "$WORK" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
FAILS=0
fail() {
  echo "FAIL: $*"
  FAILS=$((FAILS + 1))
}
export HOME=$WORK/home
unset ANDROID_SERIAL XDG_CONFIG_HOME ADB_SERVER_SOCKET ANDROID_USER_HOME
unset FATHOM_ADB_TIMEOUT_CONNECT FATHOM_ADB_TIMEOUT_AUTH FATHOM_ADB_TIMEOUT_OPEN FATHOM_ADB_TIMEOUT_IDLE
export ANDROID_ADB_SERVER_PORT=1  # never an adb server
mkdir -p "$HOME"
# Small deadlines so every wait ends in seconds; `timeout` only catches a hang.
# ADB_HOSTILE_LIMITS / ADB_HOSTILE_HANG override both (to run an older fathom-cli that has no
# --timeout-* flags and see what it does: ADB_HOSTILE_LIMITS= ADB_HOSTILE_HANG=10).
read -r -a LIMITS <<<"${ADB_HOSTILE_LIMITS-"--timeout-connect 3 --timeout-auth 3 --timeout-open 3 --timeout-idle 3"}"
HANG=${ADB_HOSTILE_HANG:-60}

start_adbd() {  # mode; sets PORT and ADBD_PID
  # A file of its own per start: the child truncates a reused one only when it
  # gets to run, so a loaded machine let the wait below read the previous
  # mode's "listening" line, then find the file empty.
  ADBD_STARTS=$((${ADBD_STARTS:-0} + 1))
  local out=$WORK/adbd.$ADBD_STARTS.out
  "$ADBD" --misbehave "$1" >"$out" 2>&1 &
  ADBD_PID=$!
  # Up to 30 s: a loaded machine (CI with ctest -j) can be slow to start a process.
  for _ in $(seq 600); do grep -q listening "$out" && break; sleep 0.05; done
  PORT=$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' "$out")
  [ -n "$PORT" ] || { echo "fathom-test-adbd --misbehave $1 did not start: $(cat "$out")"; exit 1; }
}
stop_adbd() {
  kill "$ADBD_PID" 2>/dev/null
  wait "$ADBD_PID" 2>/dev/null
  ADBD_PID=
}

# A fresh pull destination: DEST (mode 0700) holds the local name OUT, nothing else.
fresh_dest() {
  chmod -R u+rwx "$WORK/dest" 2>/dev/null
  rm -rf "$WORK/dest"
  mkdir -m 0700 "$WORK/dest"
  DEST=$WORK/dest
  OUT=$DEST/out
}

# mode | command | expected exit | extended regex the stderr must match
CASES=$(
  cat <<'TABLE'
silent|shell|1|did not answer CNXN within 3 s \(--timeout-connect\)
close_after_cnxn|shell|1|adb handshake with 127\.0\.0\.1:[0-9]+: .*(closed|reset|EOF|end)
bad_magic|shell|1|bad message magic for CNXN
bad_checksum_v1|shell|0|^$
cnxn_banner_1mb|shell|1|CNXN payload of [0-9]+ bytes exceeds the limit of 65536
cnxn_banner_claims_16mb|shell|1|CNXN payload of 16777216 bytes exceeds the limit of 65536
cnxn_banner_weird|shell|0|^$
cnxn_zero_maxdata|shell|1|device announced a zero max payload
cnxn_tiny_maxdata|shell|1|device announced a max payload of 1 bytes
auth_loop|shell|1|is unauthorized: .*not allowed within 3 s \(--timeout-auth\)
auth_token_flood|shell|1|sent 10 AUTH tokens without accepting a key .*\(an AUTH loop\)
auth_bad_token_size|shell|1|bad AUTH token size \(4000 bytes, want 20\)
stls|shell|1|device wants TLS
open_refused|shell|1|device refused service 'shell,v2,raw:echo hi'
open_no_reply|shell|1|did not answer OPEN of 'shell,v2,raw:echo hi' within 3 s \(--timeout-open\)
payload_len_gt_max|shell|1|WRTE payload of 2147483647 bytes exceeds the limit of 1048576
payload_len_max_plus_1|shell|1|WRTE payload of 1048577 bytes exceeds the limit of 1048576
wrte_unknown_ids|shell|1|257 messages for streams that were never opened \(the last: WRTE .*a flood
okay_flood|shell|1|257 messages for streams that were never opened \(the last: OKAY for stream 4242\): a flood
clse_unknown_flood|shell|1|257 messages for streams that were never opened \(the last: CLSE .*a flood
shell_frame_4gb|shell|1|shell v2 frame \(id 1\) of 4294967295 bytes; the limit is 16777216
shell_no_exit|shell|1|stream ended without an exit status
shell_flood_no_ack|shell|1|without waiting for our OKAY \(it ignores flow control\)
shell_stall|shell|1|device sent nothing on 'shell,v2,raw:echo hi' within 3 s \(--timeout-idle\)
shell_bad_frame_id|shell|0|^$
stat_enoent|pull|1|/data/file\.bin: adb sync: stat /data/file\.bin: errno 2 \(No such file or directory\)
stat_lies_4gb|pull|1|received 10 bytes but the device's stat said 4294967296
list_traversal|pulldir|1|skipped /data/dir/\.\./escaped\.txt: unsafe name \(contains a path separator\)
list_nul_dotdot|pulldir|1|skipped /data/dir/\.\.\\x00: unsafe name \(contains a NUL byte\)
list_nul_dotdot_file|pulldir|1|skipped /data/dir/\.\.\\x00: unsafe name \(contains a NUL byte\)
list_empty_name|pulldir|1|skipped /data/dir/: unsafe name \(empty name\)
list_infinite_depth|pulldir|1|path longer than 1024 bytes
list_huge|pulldir|1|stopped at the limit of 1000 entries \(--max-entries\): 199000 more in /data/dir
sync_data_1gb|pull|1|device sent a DATA record of 1073741824 bytes; the limit is 65536
pull_close_mid|pull|1|(lost|closed|not online)
pull_clse_mid|pull|1|device closed the stream
pull_stall_mid|pull|1|device sent nothing on 'sync:' within 3 s \(--timeout-idle\)
pull_fail_huge_msg|pull|1|pull /data/file\.bin: m{300}\.\.\. \(a FAIL claiming 4294967295 bytes\)
pull_bad_id|pull|1|unexpected reply 'XXXX' \(a protocol error\)
pull_many_tiny|pull|1|received 300000 bytes but the device's stat said 3145728
TABLE
)

# Files a pull may leave: OUT (a file, or a tree whose every name is checked below), and
# nothing else in DEST or beside it.
check_files() {  # mode, exit code
  local mode=$1 code=$2 stray
  [ "$(stat -c %a "$DEST")" = 700 ] || fail "$mode: the destination's parent is now $(stat -c %a "$DEST")"
  stray=$(find "$DEST" -mindepth 1 -maxdepth 1 ! -name out)
  [ -z "$stray" ] || fail "$mode: left beside the destination: $stray"
  stray=$(find "$DEST" -name '*fathom-partial*')
  [ -z "$stray" ] || fail "$mode: temporary file left: $stray"
  [ -e "$WORK/escaped.txt" ] && fail "$mode: wrote outside the destination: $WORK/escaped.txt"
  [ -e /tmp/fathom-abs-escape.txt ] && fail "$mode: wrote /tmp/fathom-abs-escape.txt"
  case $mode in
    list_traversal | list_nul_dotdot | list_nul_dotdot_file)
      # The good entry beside the hostile ones is pulled, and nothing else.
      [ "$(stat -c %s "$OUT/ok.txt" 2>/dev/null)" = 3145728 ] || fail "$mode: ok.txt was not pulled"
      [ "$(find "$OUT" -mindepth 1)" = "$OUT/ok.txt" ] || fail "$mode: more than ok.txt: $(find "$OUT")"
      ;;
    list_empty_name | list_huge)
      [ -z "$(find "$OUT" -mindepth 1)" ] || fail "$mode: unexpected files: $(find "$OUT" -mindepth 1)" ;;
    list_infinite_depth) ;;  # the directories above the cut, each named 'aaa...dir'
    *)
      if [ "$code" != 0 ]; then [ -e "$OUT" ] && fail "$mode: a failed pull left $OUT"; fi ;;
  esac
}

run_case() {  # mode command code regex
  local mode=$1 cmd=$2 want=$3 regex=$4 code extra=()
  start_adbd "$mode"
  fresh_dest
  # 200,000 entries take a while to build on a loaded machine: a longer idle limit.
  [ "$mode" = list_huge ] && extra=(--max-entries 1000 --timeout-idle 30)
  local t0
  t0=$(date +%s%N)
  case $cmd in
    shell) timeout "$HANG" "$CLI" shell -s "127.0.0.1:$PORT" --transport tcp "${LIMITS[@]}" \
      echo hi >"$WORK/o" 2>"$WORK/e" </dev/null ;;
    pull) timeout "$HANG" "$CLI" pull -s "127.0.0.1:$PORT" --transport tcp "${LIMITS[@]}" \
      /data/file.bin "$OUT" >"$WORK/o" 2>"$WORK/e" </dev/null ;;
    pulldir) timeout "$HANG" "$CLI" pull -s "127.0.0.1:$PORT" --transport tcp "${LIMITS[@]}" \
      "${extra[@]}" /data/dir "$OUT" >"$WORK/o" 2>"$WORK/e" </dev/null ;;
  esac
  code=$?
  local took=$((($(date +%s%N) - t0) / 1000000))
  stop_adbd
  if [ "$code" = 124 ]; then
    fail "$mode: did not end within $HANG s"
  elif [ "$code" != "$want" ]; then
    fail "$mode: exit $code, want $want; stderr: $(head -c 600 "$WORK/e")"
  elif [ "$want" = 0 ] && [ "$cmd" = shell ] && [ "$(cat "$WORK/o")" != hi ]; then
    fail "$mode: stdout '$(cat "$WORK/o")', want hi"
  elif [ "$want" != 0 ] && ! grep -Eq -- "$regex" "$WORK/e"; then
    fail "$mode: stderr does not match /$regex/: $(head -c 600 "$WORK/e")"
  fi
  [ "$cmd" = shell ] || check_files "$mode" "$code"
  echo "$mode: exit $code after $took ms: $(grep -v '^fathom-cli: warning' "$WORK/e" | head -1 | cut -c1-160)"
}

SELECTED=("$@")
want_mode() {
  [ ${#SELECTED[@]} = 0 ] && return 0
  local m
  for m in "${SELECTED[@]}"; do [ "$m" = "$1" ] && return 0; done
  return 1
}

while IFS='|' read -r mode cmd want regex; do
  want_mode "$mode" && run_case "$mode" "$cmd" "$want" "$regex"
done <<<"$CASES"

# Every mode of the double is in the table.
for m in $("$ADBD" --misbehave list 2>&1 | sed -n '/MODE is one of/,$p' | tail -n +2); do
  grep -q "^$m|" <<<"$CASES" || fail "mode $m has no case"
done

if want_mode env_timeout; then
  # The environment sets the same limits as the flags.
  start_adbd open_no_reply
  FATHOM_ADB_TIMEOUT_OPEN=1 timeout "$HANG" "$CLI" shell -s "127.0.0.1:$PORT" --transport tcp \
    echo hi >/dev/null 2>"$WORK/e" </dev/null
  stop_adbd
  grep -q "within 1 s (--timeout-open)" "$WORK/e" || fail "FATHOM_ADB_TIMEOUT_OPEN ignored: $(cat "$WORK/e")"
  echo "env_timeout: $(cat "$WORK/e")"
fi

interrupted_pull() {  # signal, expected exit
  start_adbd pull_stall_mid
  fresh_dest
  "$CLI" pull -s "127.0.0.1:$PORT" --transport tcp --timeout-idle 50 /data/file.bin "$OUT" \
    >/dev/null 2>"$WORK/e" </dev/null &
  local pid=$! code
  for _ in $(seq 100); do [ -n "$(find "$DEST" -name '*fathom-partial*')" ] && break; sleep 0.05; done
  [ -n "$(find "$DEST" -name '*fathom-partial*')" ] || fail "$1: no temporary file while pulling"
  sleep 0.2
  kill "-$1" "$pid"
  wait "$pid"
  code=$?
  stop_adbd
  [ "$code" = "$2" ] || fail "$1 during a pull: exit $code, want $2 ($(cat "$WORK/e"))"
  check_files "interrupted_$1" "$code"
  echo "$1 during a stalled pull: exit $code, $(find "$DEST" -mindepth 1 | wc -l) files left"
}
if want_mode interrupt; then
  interrupted_pull INT 130
  interrupted_pull TERM 143
fi

[ "$FAILS" = 0 ] || { echo "$FAILS failure(s)"; exit 1; }
echo "all hostile modes ended as expected"
