#!/usr/bin/env bash
# fathom-cli devices/connect/shell/push/pull against fathom-test-adbd (an adbd
# double whose device is this machine, with AUTH): directly over TCP, then
# through Debian's adb server on a private port (Fathom -> adb server -> double).
# Files of 0 B, 1 B, 64 KiB, 64 KiB+1 and 50 MB must come back byte-identical.
set -uo pipefail
CLI=$1 ADBD=$2
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  if [ -n "${ADB_STARTED:-}" ]; then adb kill-server >/dev/null 2>&1; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
export HOME=$WORK/home
unset ANDROID_SERIAL XDG_CONFIG_HOME ADB_SERVER_SOCKET ANDROID_USER_HOME
export ANDROID_ADB_SERVER_PORT=$((20000 + RANDOM % 20000))  # never a developer's server
mkdir -p "$HOME" "$WORK/src" "$WORK/dev" "$WORK/back"

start_adbd() {  # sets PORT
  local out=$WORK/adbd.$RANDOM
  "$ADBD" --allow-any-key >"$out" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 300); do grep -q listening "$out" && break; sleep 0.1; done
  PORT=$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' "$out")
  [ -n "$PORT" ] || fail "fathom-test-adbd did not start"
}

SIZES="0 1 65536 65537 52428800"
for n in $SIZES; do head -c "$n" /dev/urandom >"$WORK/src/f$n"; done

transfer_round() {  # label, extra fathom-cli args...
  local label=$1
  shift
  rm -rf "$WORK/dev"/* "$WORK/back"/*
  for n in $SIZES; do
    "$CLI" push "$@" "$WORK/src/f$n" "$WORK/dev/f$n" 2>"$WORK/err" </dev/null \
      || fail "$label: push $n B: $(cat "$WORK/err")"
    cmp -s "$WORK/src/f$n" "$WORK/dev/f$n" || fail "$label: pushed $n B differ"
    "$CLI" pull "$@" "$WORK/dev/f$n" "$WORK/back/f$n" 2>"$WORK/err" </dev/null \
      || fail "$label: pull $n B: $(cat "$WORK/err")"
    cmp -s "$WORK/src/f$n" "$WORK/back/f$n" || fail "$label: pulled $n B differ"
  done
  echo "$label: push+pull of $SIZES bytes identical ($(grep -o '[0-9.]* MB/s' "$WORK/err"))"
}

shell_checks() {  # label, extra args...
  local label=$1 code
  shift
  "$CLI" shell "$@" 'echo to-out; echo to-err >&2; exit 7' >"$WORK/o" 2>"$WORK/e" </dev/null
  code=$?
  [ "$code" = 7 ] || fail "$label: exit code $code, want 7 ($(cat "$WORK/e"))"
  [ "$(cat "$WORK/o")" = to-out ] || fail "$label: stdout '$(cat "$WORK/o")'"
  grep -qx to-err "$WORK/e" || fail "$label: stderr '$(cat "$WORK/e")'"
  grep -q to-err "$WORK/o" && fail "$label: stderr mixed into stdout"
  [ "$(printf 'a b\nc' | "$CLI" shell "$@" cat)" = "$(printf 'a b\nc')" ] \
    || fail "$label: piped stdin did not reach the command"
  echo "$label: shell exit code, separate stdout/stderr, stdin: ok"
}

start_adbd
SERIAL=127.0.0.1:$PORT

# --- No devices yet: a clear error, not a hang.
"$CLI" shell true >"$WORK/o" 2>&1 </dev/null && fail "shell without any device succeeded"
grep -q "no usable device" "$WORK/o" || fail "unclear no-device error: $(cat "$WORK/o")"

# --- Remember the double; it becomes the only device, picked without -s.
"$CLI" connect "$SERIAL" >"$WORK/o" 2>&1 || fail "connect: $(cat "$WORK/o")"
[ -s "$HOME/.config/fathom/tcp-targets" ] || fail "connect did not remember the device"
"$CLI" devices -l >"$WORK/o" || fail "devices -l failed"
grep -q "^$SERIAL .* tcp" "$WORK/o" || fail "devices does not list $SERIAL: $(cat "$WORK/o")"
shell_checks "direct (only device)"
shell_checks "direct (-s)" -s "$SERIAL" --transport tcp
ANDROID_SERIAL=127.0.0.1:1 "$CLI" shell true >/dev/null 2>&1 </dev/null \
  && fail "ANDROID_SERIAL ignored"
ANDROID_SERIAL=$SERIAL "$CLI" shell --transport=tcp 'exit 3' </dev/null
[ $? = 3 ] || fail "ANDROID_SERIAL route did not run the command"
"$CLI" shell --transport usb -s "$SERIAL" true >"$WORK/o" 2>&1 </dev/null \
  && fail "--transport usb accepted a TCP serial"
grep -q "needs a USB serial" "$WORK/o" || fail "unclear --transport usb error: $(cat "$WORK/o")"
"$CLI" shell --transport bogus true >/dev/null 2>&1 && fail "--transport bogus accepted"

transfer_round "direct" -s "$SERIAL"

# Pushed programs keep their mode and can be run (the device is this machine).
printf '#!/bin/sh\necho ran "$@"\n' >"$WORK/src/prog.sh"
chmod 755 "$WORK/src/prog.sh"
"$CLI" push "$WORK/src/prog.sh" "$WORK/dev/" 2>/dev/null || fail "push into a directory"
[ "$("$CLI" shell "$WORK/dev/prog.sh" x </dev/null)" = "ran x" ] || fail "pushed program did not run"
# Pull into a directory keeps the remote name.
"$CLI" pull "$WORK/dev/prog.sh" "$WORK/back" 2>/dev/null || fail "pull into a directory"
cmp -s "$WORK/src/prog.sh" "$WORK/back/prog.sh" || fail "pull into a directory: wrong content"
# Remote errors carry the device's text; no file appears locally, not even a partial one.
"$CLI" pull "$WORK/dev/missing" "$WORK/back/missing" >"$WORK/o" 2>&1 && fail "pulled a missing file"
grep -qi "no such file" "$WORK/o" || fail "pull error lacks the device's text: $(cat "$WORK/o")"
[ -z "$(ls "$WORK/back" | grep missing)" ] || fail "a failed pull left a file behind"
echo "direct: errors ok"

# Directories, recursively, as adb does: modes kept, empty directories too, "into" an existing
# directory when the destination is one.
mkdir -p "$WORK/src/tree/bin" "$WORK/src/tree/deep/x/y" "$WORK/src/tree/empty"
printf 'hello\n' >"$WORK/src/tree/a.txt"
printf '#!/bin/sh\necho tree\n' >"$WORK/src/tree/bin/run.sh"
head -c 70000 /dev/urandom >"$WORK/src/tree/deep/x/y/z.bin"
chmod 644 "$WORK/src/tree/a.txt"; chmod 755 "$WORK/src/tree/bin/run.sh"
chmod 600 "$WORK/src/tree/deep/x/y/z.bin"; chmod 750 "$WORK/src/tree/deep"
modes() { (cd "$1" && find . -printf '%p %m %y\n' | sort); }
tree_round() {  # label, extra args...
  local label=$1
  shift
  rm -rf "$WORK/dev/tree" "$WORK/dev/t2" "$WORK/back/tree" "$WORK/back/t2"
  "$CLI" push "$@" "$WORK/src/tree" "$WORK/dev/" 2>"$WORK/e" </dev/null \
    || fail "$label: push dir: $(cat "$WORK/e")"
  grep -q "3 files pushed" "$WORK/e" || fail "$label: push dir summary: $(cat "$WORK/e")"
  diff -r "$WORK/src/tree" "$WORK/dev/tree" >/dev/null || fail "$label: pushed tree differs"
  [ "$(modes "$WORK/src/tree" | grep -v '^\. ' | grep -v ' d$')" = \
    "$(modes "$WORK/dev/tree" | grep -v '^\. ' | grep -v ' d$')" ] \
    || fail "$label: pushed modes differ"
  [ -d "$WORK/dev/tree/empty" ] || fail "$label: empty directory not pushed"
  "$CLI" push "$@" "$WORK/src/tree" "$WORK/dev/t2" 2>/dev/null </dev/null || fail "$label: push dir as"
  [ -f "$WORK/dev/t2/bin/run.sh" ] || fail "$label: push DIR NEWNAME did not create NEWNAME"
  "$CLI" pull "$@" "$WORK/dev/tree" "$WORK/back" 2>"$WORK/e" </dev/null \
    || fail "$label: pull dir: $(cat "$WORK/e")"
  grep -q "3 files pulled" "$WORK/e" || fail "$label: pull dir summary: $(cat "$WORK/e")"
  diff -r "$WORK/src/tree" "$WORK/back/tree" >/dev/null || fail "$label: pulled tree differs"
  # Pulled files and directories take the device's modes (directories too, unlike push).
  [ "$(modes "$WORK/dev/tree")" = "$(modes "$WORK/back/tree")" ] \
    || fail "$label: pulled modes differ: $(diff <(modes "$WORK/dev/tree") <(modes "$WORK/back/tree"))"
  "$CLI" pull "$@" "$WORK/dev/t2" "$WORK/back/t2" 2>/dev/null </dev/null || fail "$label: pull dir as"
  diff -r "$WORK/src/tree" "$WORK/back/t2" >/dev/null || fail "$label: pull DIR NEWNAME differs"
  [ -z "$(find "$WORK/back" -name '*fathom-partial*')" ] || fail "$label: temp files left"
  echo "$label: directory push/pull (recursive, modes, empty dirs): ok"
}
tree_round "direct" -s "$SERIAL"

# Sync v2 (SND2/RCV2) with every codec: a double that advertises sendrecv_v2 and the codecs.
V2_FEATURES=shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,sendrecv_v2,sendrecv_v2_brotli,sendrecv_v2_lz4,sendrecv_v2_zstd,delayed_ack
out=$WORK/adbd-v2
"$ADBD" --allow-any-key --features "$V2_FEATURES" >"$out" 2>&1 &
PIDS+=($!)
for _ in $(seq 300); do grep -q listening "$out" && break; sleep 0.1; done
V2_SERIAL=127.0.0.1:$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' "$out")
head -c 5242880 /dev/urandom >"$WORK/src/f5242880"
for form in v1 v2 zstd lz4 brotli; do
  if ! FATHOM_ADB_SYNC=$form "$CLI" push -s "$V2_SERIAL" "$WORK/src/f1" "$WORK/dev/probe" \
      >"$WORK/o" 2>&1 </dev/null; then
    grep -q "this build has no $form" "$WORK/o" || fail "sync $form: $(cat "$WORK/o")"
    echo "sync $form: not built, skipped"
    continue
  fi
  # 5 MB here; adb_tests' SyncV2Test covers the 50 MB file in every form.
  SIZES="0 1 65536 65537 5242880" FATHOM_ADB_SYNC=$form transfer_round "sync $form" -s "$V2_SERIAL"
done
FATHOM_ADB_SYNC=zstd tree_round "sync zstd" -s "$V2_SERIAL"
# delayed_ack (windowed flow control) when asked for and the double lists it too.
FATHOM_ADB_DELAYED_ACK=1 transfer_round "delayed_ack" -s "$V2_SERIAL"
FATHOM_ADB_DELAYED_ACK=1 shell_checks "delayed_ack" -s "$V2_SERIAL"
# The plain double has no sendrecv_v2: asking for it is a clear error.
FATHOM_ADB_SYNC=zstd "$CLI" push -s "$SERIAL" "$WORK/src/f1" "$WORK/dev/probe" >"$WORK/o" 2>&1 \
  </dev/null && fail "zstd push to a device without sendrecv_v2 succeeded"
grep -q "sendrecv_v2" "$WORK/o" || fail "unclear sendrecv_v2 error: $(cat "$WORK/o")"

# The device vanishes mid-pull: an error, and no half-written file under the final name.
# A FIFO whose writer sent a little and then stalls keeps the pull in flight.
start_adbd
CUT=127.0.0.1:$PORT CUT_PID=${PIDS[-1]}
mkfifo "$WORK/dev/fifo"
( printf 'partial data'; exec sleep 30 ) >"$WORK/dev/fifo" 2>/dev/null &
PIDS+=($!)
"$CLI" pull -s "$CUT" "$WORK/dev/fifo" "$WORK/back/cut" >"$WORK/o" 2>&1 </dev/null &
PULL=$!
sleep 1
kill -9 "$CUT_PID"
wait "$CUT_PID" 2>/dev/null
for _ in $(seq 100); do kill -0 $PULL 2>/dev/null || break; sleep 0.1; done
kill -0 $PULL 2>/dev/null && fail "pull hung after the device vanished"
wait $PULL && fail "a cut pull succeeded"
[ -e "$WORK/back/cut" ] && fail "a cut pull left a file under the final name"
[ -z "$(ls "$WORK/back" | grep fathom-partial)" ] || fail "a cut pull left its temp file"
echo "cut mid-pull: ok ($(tail -1 "$WORK/o"))"

# --- Through Debian's adb server.
if ! command -v adb >/dev/null; then
  echo "SKIP: adb not installed, server route not tested"
  echo PASS
  exit 0
fi
ADB_STARTED=1
adb start-server >/dev/null 2>&1
# --transport server asks the server to connect the device, and says so.
"$CLI" shell --transport server -s "$SERIAL" 'exit 5' >"$WORK/o" 2>"$WORK/e" </dev/null
[ $? = 5 ] || fail "server route: $(cat "$WORK/e")"
grep -q "asked the adb server" "$WORK/e" || fail "server route not announced: $(cat "$WORK/e")"
adb devices | grep -q "^$SERIAL.device" || fail "Debian's adb does not see $SERIAL"
# The remembered TCP device and the server's entry are one device, listed once, via the server.
"$CLI" devices -l >"$WORK/o"
[ "$(grep -c "^$SERIAL " "$WORK/o")" = 1 ] || fail "duplicate serials: $(cat "$WORK/o")"
grep -q "^$SERIAL .*device *server" "$WORK/o" || fail "not listed via the server: $(cat "$WORK/o")"
shell_checks "adb server" --transport server
shell_checks "adb server (auto)" -s "$SERIAL"
transfer_round "adb server" -s "$SERIAL" --transport server
tree_round "adb server" -s "$SERIAL" --transport server
# What Fathom pushed through the server, Debian's adb reads back identically.
adb -s "$SERIAL" pull "$WORK/dev/f65537" "$WORK/back/by-adb" >/dev/null 2>&1
cmp -s "$WORK/src/f65537" "$WORK/back/by-adb" || fail "Debian's adb pulled different bytes"

# Two devices and no -s: refuse and name them.
start_adbd
"$CLI" connect "127.0.0.1:$PORT" >/dev/null 2>&1 || fail "connect second double"
"$CLI" shell true >"$WORK/o" 2>&1 </dev/null && fail "picked one of two devices silently"
grep -q "more than one device" "$WORK/o" || fail "unclear ambiguity error: $(cat "$WORK/o")"
grep -q "$SERIAL" "$WORK/o" || fail "ambiguity error does not name the devices"
"$CLI" disconnect "127.0.0.1:$PORT" >/dev/null || fail "disconnect"
grep -q "127.0.0.1:$PORT" "$HOME/.config/fathom/tcp-targets" && fail "disconnect did not forget"
echo PASS
