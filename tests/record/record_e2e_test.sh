#!/usr/bin/env bash
# fathom-cli record through fathom-test-adbd (TCP + AUTH), through Debian's
# adb server, on this computer, and with the cable pulled mid-recording.
set -uo pipefail
CLI=$1 ADBD=$2 DEVICE_DIR=$3 HEAP_PROG=${4:-} JAVA_CLASSES=${5:-} BUSY_PROG=${6:-}
WORK=$(mktemp -d)
ADBD_PID=
cleanup() {
  [ -n "$ADBD_PID" ] && kill "$ADBD_PID" 2>/dev/null
  if [ -n "${ADB_STARTED:-}" ]; then adb kill-server >/dev/null 2>&1; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
export HOME=$WORK/home FATHOM_DEVICE_DIR=$DEVICE_DIR
# A private adb server port, so a developer's server is never touched.
export ANDROID_ADB_SERVER_PORT=$((20000 + RANDOM % 20000))
mkdir -p "$HOME"

start_adbd() {
  "$ADBD" --allow-any-key >"$WORK/adbd.out" 2>&1 &
  ADBD_PID=$!
  for _ in $(seq 300); do grep -q listening "$WORK/adbd.out" && break; sleep 0.1; done
  PORT=$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/adbd.out")
  [ -n "$PORT" ] || fail "fathom-test-adbd did not start"
}

check_trace() {  # file, label
  local n
  n=$("$CLI" query "$1" "select count(*) from process_counter_track" --format csv | tail -1)
  [ "${n:-0}" -gt 0 ] 2>/dev/null || fail "$2: no process counters in $1"
  n=$("$CLI" query "$1" "select count(*) from process where name like '%fathom-recorder%'" --format csv | tail -1)
  [ "${n:-0}" -gt 0 ] 2>/dev/null || fail "$2: the recorder's own process is missing"
  n=$("$CLI" query "$1" "select count(*) from counter_track where name like 'mem.%' or name like 'MemTotal%' or name like 'meminfo%'" --format csv | tail -1)
  echo "$2: ok ($(stat -c %s "$1") bytes, memory tracks: $n)"
}

# 1. Direct TCP with AUTH: the double asks for a signature, then accepts the key.
start_adbd
"$CLI" record -s "127.0.0.1:$PORT" --preset memory --time 2s -o "$WORK/direct.pftrace" \
  >"$WORK/direct.log" 2>&1 || { cat "$WORK/direct.log"; fail "direct record failed"; }
grep -q "Linux" "$WORK/direct.log" || fail "target not detected as Linux: $(cat "$WORK/direct.log")"
grep -q "adb, direct" "$WORK/direct.log" || fail "expected a direct connection"
check_trace "$WORK/direct.pftrace" "direct"
# The temporary directory on the target is gone, and the output says so.
dir=$(sed -n 's|^Removed \(/tmp/fathom\.[^ ]*\) from the target$|\1|p' "$WORK/direct.log")
[ -n "$dir" ] || fail "the target's directory is not said to be removed: $(cat "$WORK/direct.log")"
[ -e "$dir" ] && fail "$dir is left on the target"

# 2. Through Debian's adb server holding the device.
if command -v adb >/dev/null; then
  ADB_STARTED=1
  adb start-server >/dev/null 2>&1
  adb connect "127.0.0.1:$PORT" >/dev/null 2>&1
  for _ in $(seq 50); do adb devices | grep -q "127.0.0.1:$PORT.device" && break; sleep 0.2; done
  "$CLI" record -s "127.0.0.1:$PORT" --preset memory --time 2s -o "$WORK/server.pftrace" \
    >"$WORK/server.log" 2>&1 || { cat "$WORK/server.log"; fail "record via adb server failed"; }
  grep -q "adb server" "$WORK/server.log" || fail "expected the adb server path"
  check_trace "$WORK/server.pftrace" "adb server"
  adb kill-server >/dev/null 2>&1
  unset ADB_STARTED
else
  echo "SKIP: adb not installed, server path not tested"
fi

# 3. This computer.
"$CLI" record --local --preset memory --time 2s -o "$WORK/local.pftrace" >"$WORK/local.log" 2>&1 \
  || { cat "$WORK/local.log"; fail "local record failed"; }
check_trace "$WORK/local.pftrace" "local"

# 3b. CPU call stacks of a busy program on this computer (linux.perf, no tracefs needed),
#     and without a writable tracefs the scheduling preset names the cause.
if [ -n "$BUSY_PROG" ]; then
  "$BUSY_PROG" 4000 >/dev/null &
  BUSY_PID=$!
  "$CLI" record --local --preset cpu-callstacks --app "$(basename "$BUSY_PROG")" --time 1s \
    -o "$WORK/stacks.pftrace" >"$WORK/stacks.log" 2>&1 || { cat "$WORK/stacks.log"; fail "callstack record failed"; }
  kill "$BUSY_PID" 2>/dev/null; wait "$BUSY_PID" 2>/dev/null
  if grep -q "linux.perf gave no CPU samples" "$WORK/stacks.log"; then
    echo "SKIP: this kernel allows no perf events: $(grep -A1 linux.perf "$WORK/stacks.log")"
  else
    n=$("$CLI" query "$WORK/stacks.pftrace" "select count(*) from perf_sample s join stack_profile_callsite c on c.id = s.callsite_id join stack_profile_frame f on f.id = c.frame_id where f.name = 'perf_busy_leaf'" --format csv | tail -1)
    [ "${n:-0}" -gt 0 ] 2>/dev/null || { cat "$WORK/stacks.log"; fail "no samples in perf_busy_leaf"; }
    echo "local call stacks: ok ($n samples in perf_busy_leaf)"
  fi
fi
if [ ! -w /sys/kernel/tracing/trace_marker ] && [ ! -w /sys/kernel/debug/tracing/trace_marker ]; then
  "$CLI" record --local --preset cpu --time 1s -o "$WORK/sched.pftrace" >"$WORK/sched.log" 2>&1
  grep -q "linux.ftrace gave no events" "$WORK/sched.log" \
    || { cat "$WORK/sched.log"; fail "no tracefs, and no word why the timeline is empty"; }
  echo "no tracefs: the hint names it"
fi

# 4. A native heap profile through the same path: fathom-heapprofd and the
#    preload library are pushed next to the recorder and run the program.
if [ -n "$HEAP_PROG" ] && [ -x "$DEVICE_DIR/fathom-heapprofd" ]; then
  "$CLI" record -s "127.0.0.1:$PORT" --preset native-heap --app "$HEAP_PROG" --time 30s \
    -o "$WORK/heap.pftrace" >"$WORK/heap.log" 2>&1 || { cat "$WORK/heap.log"; fail "heap record failed"; }
  n=$("$CLI" query "$WORK/heap.pftrace" "select count(distinct ts) from heap_profile_allocation" --format csv | tail -1)
  [ "${n:-0}" -ge 1 ] 2>/dev/null || fail "heap: no dump (diamond) in the trace"
  n=$("$CLI" query "$WORK/heap.pftrace" "select count(*) from experimental_flamegraph('native', (select max(ts) from heap_profile_allocation), (select upid from heap_profile_allocation limit 1)) where name like '%AllocateSmall%'" --format csv | tail -1)
  if [ "${n:-0}" -lt 1 ] 2>/dev/null; then
    n=$("$CLI" query "$WORK/heap.pftrace" "select count(*) from stack_profile_frame where name like '%AllocateSmall%'" --format csv | tail -1)
  fi
  [ "${n:-0}" -ge 1 ] 2>/dev/null || fail "heap: the known allocation function is not in the flamegraph"
  echo "heap profile: ok ($(stat -c %s "$WORK/heap.pftrace") bytes)"
else
  echo "SKIP: heap profiler not built"
fi

# 5. Java allocation sampling: a JVM started with Fathom's JVMTI agent; the
#    trace and the allocation log come back as one tar that opens as one trace.
if [ -n "$JAVA_CLASSES" ] && command -v java >/dev/null && [ -e "$DEVICE_DIR/../lib/libfathom_jvmti.so" ]; then
  "$CLI" record -s "127.0.0.1:$PORT" --preset java-alloc --time 60s \
    --app "java -cp $JAVA_CLASSES AllocWorkload 200000 50 0" -o "$WORK/java.pftrace" \
    >"$WORK/java.log" 2>&1 || { cat "$WORK/java.log"; fail "java-alloc record failed"; }
  n=$("$CLI" query "$WORK/java.pftrace" "select count(*) from stack_profile_frame where name like '%makePoints%'" --format csv | tail -1)
  [ "${n:-0}" -ge 1 ] 2>/dev/null || fail "java-alloc: makePoints is not among the frames"
  n=$("$CLI" query "$WORK/java.pftrace" "select count(*) from process where name like '%fathom-recorder%'" --format csv | tail -1)
  [ "${n:-0}" -ge 1 ] 2>/dev/null || fail "java-alloc: the recorder's trace is missing from the bundle"
  echo "java allocations: ok ($(stat -c %s "$WORK/java.pftrace") bytes)"
else
  echo "SKIP: JVMTI agent, workload or java missing"
fi

# 6. Pull the cable: kill the double while recording. A clear error, soon.
"$CLI" record -s "127.0.0.1:$PORT" --preset memory --time 60s -o "$WORK/cut.pftrace" \
  >"$WORK/cut.log" 2>&1 &
REC=$!
sleep 3
kill -9 "$ADBD_PID"
ADBD_PID=
# The double's end of the socket closes with it (its commands do not hold it),
# so the host sees EOF at once: allow 5 s, far above the ~0.3 s it takes.
CUT_AT=$(date +%s%N)
for _ in $(seq 50); do kill -0 $REC 2>/dev/null || break; sleep 0.1; done
kill -0 $REC 2>/dev/null && { kill $REC; fail "the pulled cable went unnoticed for 5 s"; }
CUT_MS=$(( ($(date +%s%N) - CUT_AT) / 1000000 ))
wait $REC && fail "record succeeded without a device"
grep -q "lost the connection" "$WORK/cut.log" || fail "unclear error: $(cat "$WORK/cut.log")"
[ -e "$WORK/cut.pftrace" ] && fail "a partial trace must not appear under the final name"
# What stays on the target (this machine) is named, so the user can fetch it.
left=$(sed -n 's|.*files stay on the target in \(/tmp/fathom\.[A-Za-z0-9]*\).*|\1|p' "$WORK/cut.log")
[ -n "$left" ] && [ -d "$left" ] || fail "what stays on the target is not named: $(cat "$WORK/cut.log")"
rm -rf "$left"
echo "pulled cable: ok after ${CUT_MS} ms ($(tail -1 "$WORK/cut.log"))"
echo PASS
