#!/usr/bin/env bash
# Interrupting `fathom-cli record`, and a bad -o, through fathom-test-adbd (a
# real adbd double whose device is this machine):
# 1. SIGTERM while recording stops and pulls like Ctrl-C: the trace is saved,
#    the recorder on the target is gone, the target's copy is removed.
# 2. SIGTERM during the pull lets the pull finish: a complete trace, no temp.
# 3. Ctrl-C, then Ctrl-C again during the pull, abandons it: no temp file is
#    left, and the output names the trace still on the target.
# 4. A bad -o fails before anything runs on the target.
# A slow link (slow_link.py) makes the pull last seconds, so 2 and 3 hit it.
set -uo pipefail
CLI=$1 ADBD=$2 DEVICE_DIR=$3
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
ADBD_PID= LINK_PID= REC=
cleanup() {
  [ -n "$REC" ] && kill -9 "$REC" 2>/dev/null
  [ -n "$LINK_PID" ] && kill "$LINK_PID" 2>/dev/null
  [ -n "$ADBD_PID" ] && kill "$ADBD_PID" 2>/dev/null
  # Target directories a failed run may have left (the target is this machine).
  for d in $(sed -n 's|^Trace on the target: \(/tmp/fathom\.[^/]*\)/.*|\1|p' "$WORK"/*.log 2>/dev/null); do
    rm -rf "$d"
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: python3 missing (slow_link.py)"; exit 0; }
export HOME=$WORK/home FATHOM_DEVICE_DIR=$DEVICE_DIR
# A private adb server port: the serials below are reached directly, never a developer's server.
export ANDROID_ADB_SERVER_PORT=$((20000 + RANDOM % 20000))
mkdir -p "$HOME" "$WORK/out" "$WORK/spy"

# The target's shell finds this mktemp first: every recording the target
# starts (`mktemp -d /tmp/fathom.XXXXXX`) is logged in spy.log.
REAL_MKTEMP=$(command -v mktemp)
cat >"$WORK/spy/mktemp" <<EOF
#!/bin/sh
echo "mktemp \$*" >>"$WORK/spy.log"
exec "$REAL_MKTEMP" "\$@"
EOF
chmod +x "$WORK/spy/mktemp"
: >"$WORK/spy.log"

PATH="$WORK/spy:$PATH" "$ADBD" --allow-any-key >"$WORK/adbd.out" 2>&1 &
ADBD_PID=$!
for _ in $(seq 300); do grep -q listening "$WORK/adbd.out" && break; sleep 0.1; done
PORT=$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/adbd.out")
[ -n "$PORT" ] || fail "fathom-test-adbd did not start"
# ~35 KB of trace at 4 KiB/s: a pull of several seconds.
python3 "$HERE/slow_link.py" "$PORT" 4096 >"$WORK/link.out" 2>&1 &
LINK_PID=$!
for _ in $(seq 300); do grep -q listening "$WORK/link.out" && break; sleep 0.1; done
SLOW=$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/link.out")
[ -n "$SLOW" ] || fail "slow_link.py did not start"

start_record() {  # label, serial port, output, more record args...
  local label=$1 port=$2 out=$3
  shift 3
  "$CLI" record -s "127.0.0.1:$port" --preset memory -o "$out" "$@" >"$WORK/$label.log" 2>&1 &
  REC=$!
}
wait_for() {  # label, pattern: up to 60 s for the line in the log
  for _ in $(seq 600); do grep -q "$2" "$WORK/$1.log" && return 0; sleep 0.1; done
  fail "$1: no '$2' in 60 s: $(cat "$WORK/$1.log")"
}
finish() {  # label: the exit status of the recording, which must end within 60 s
  for _ in $(seq 600); do kill -0 "$REC" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$REC" 2>/dev/null && fail "$1: fathom-cli did not end: $(cat "$WORK/$1.log")"
  wait "$REC"
  local rc=$?
  REC=
  return $rc
}
target_dir() { sed -n 's|^Trace on the target: \(.*\)/[^/]*$|\1|p' "$WORK/$1.log"; }
# Recorders on the target (this machine) working in `dir` (their cwd).
recorders_in() {
  local p n=0
  for p in $(pgrep -x fathom-recorder); do
    readlink "/proc/$p/cwd" 2>/dev/null | grep -qF "$1" && n=$((n + 1))
  done
  echo $n
}
no_temps() {  # label: nothing but finished traces in the output directory
  local left
  left=$(ls -A "$WORK/out" | grep -E '\.part$|\.partial$|fathom-partial' || true)
  [ -z "$left" ] || fail "$1: temp files left: $left"
}
loads() {  # file, label
  local n
  n=$("$CLI" query "$1" "select count(*) from process" --format csv 2>/dev/null | tail -1)
  [ "${n:-0}" -gt 0 ] 2>/dev/null || fail "$2: the trace does not load: $("$CLI" info "$1" 2>&1 | head -3)"
}

# 1. SIGTERM while recording.
start_record term "$PORT" "$WORK/out/term.pftrace" --time 0
wait_for term "^Recording"
dir=$(target_dir term)
[ -d "$dir" ] || fail "term: no target directory named: $(cat "$WORK/term.log")"
sleep 1
[ "$(recorders_in "$dir")" -ge 1 ] || fail "term: the recorder is not running in $dir"
kill -TERM "$REC"
finish term || fail "term: SIGTERM did not save the trace: $(cat "$WORK/term.log")"
loads "$WORK/out/term.pftrace" term
[ "$(recorders_in "$dir")" = 0 ] || fail "term: the recorder still runs on the target"
[ -e "$dir" ] && fail "term: $dir is left on the target"
grep -q "Removed $dir from the target" "$WORK/term.log" || fail "term: the removal is not said"
no_temps term
grep -q "mktemp -d /tmp/fathom" "$WORK/spy.log" || fail "the spy saw no recording (test broken)"
echo "SIGTERM while recording: ok (trace saved, recorder gone, $dir removed)"

# 2. SIGTERM during the pull: the pull finishes.
start_record term-pull "$SLOW" "$WORK/out/term-pull.pftrace" --time 2s
wait_for term-pull "^Pulling the trace"
sleep 1
[ -e "$WORK/out/term-pull.pftrace.part" ] || fail "term-pull: the pull is not in flight (link too fast?)"
kill -TERM "$REC"
finish term-pull || fail "term-pull: failed: $(cat "$WORK/term-pull.log")"
loads "$WORK/out/term-pull.pftrace" term-pull
no_temps term-pull
dir=$(target_dir term-pull)
[ -e "$dir" ] && fail "term-pull: $dir is left on the target"
echo "SIGTERM during the pull: ok (the pull finished)"

# 3. Ctrl-C while recording, then again during the pull: abandoned, no temp.
start_record int "$SLOW" "$WORK/out/int.pftrace" --time 0
wait_for int "^Recording"
sleep 2
kill -INT "$REC"
wait_for int "^Pulling the trace"
sleep 1
[ -e "$WORK/out/int.pftrace.part" ] || fail "int: the pull is not in flight (link too fast?)"
kill -INT "$REC"
finish int && fail "int: an abandoned pull reported success"
[ -e "$WORK/out/int.pftrace" ] && fail "int: an abandoned pull left a trace under the final name"
no_temps int
dir=$(target_dir int)
grep -q "removed the incomplete" "$WORK/int.log" || fail "int: the temp's removal is not said: $(cat "$WORK/int.log")"
grep -qF "still on the target at $dir/trace.pftrace" "$WORK/int.log" \
  || fail "int: the target's copy is not named: $(cat "$WORK/int.log")"
[ -s "$dir/trace.pftrace" ] || fail "int: the trace named on the target is not there"
rm -rf "$dir"
echo "Ctrl-C twice during the pull: ok (no temp, target copy named)"

# 4. A bad -o fails before anything runs on the target: the spy sees no mktemp.
mkfifo "$WORK/fifo"
# (/proc takes no new files, even from root.)
for bad in "$WORK/out" "$WORK/missing/t.pftrace" /proc/t.pftrace "$WORK/fifo"; do
  : >"$WORK/spy.log"
  start_record bad "$PORT" "$bad" --time 2s
  finish bad && fail "bad -o $bad: accepted"
  grep -qF "$bad" "$WORK/bad.log" || fail "bad -o $bad: the error does not name it: $(cat "$WORK/bad.log")"
  [ -s "$WORK/spy.log" ] && fail "bad -o $bad: the target started a recording: $(cat "$WORK/spy.log")"
  echo "bad -o $bad: ok ($(tail -1 "$WORK/bad.log"))"
done
echo PASS
