#!/usr/bin/env bash
# Stop early (Ctrl-C once) on Linux targets, through fathom-test-adbd and on
# this computer: the program Fathom started for a heap profile or a Java
# allocation recording is stopped with the recording (and the CLI says so),
# and the trace it wrote up to then is pulled and opens.
set -uo pipefail
CLI=$1 ADBD=$2 DEVICE_DIR=$3 JAVA_CLASSES=${4:-}
WORK=$(mktemp -d)
ADBD_PID=
MARK=fathom-stop-early-$$
cleanup() {
  [ -n "$ADBD_PID" ] && kill "$ADBD_PID" 2>/dev/null
  for p in $(pgrep -f "$MARK"); do kill -9 "$p" 2>/dev/null; done
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
export HOME=$WORK/home FATHOM_DEVICE_DIR=$DEVICE_DIR
mkdir -p "$HOME"

"$ADBD" --allow-any-key >"$WORK/adbd.out" 2>&1 &
ADBD_PID=$!
for _ in $(seq 300); do grep -q listening "$WORK/adbd.out" && break; sleep 0.1; done
PORT=$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/adbd.out")
[ -n "$PORT" ] || fail "fathom-test-adbd did not start"

# A program that runs until stopped and allocates a little all the time; its
# command line carries a marker so the test can find it (and only it).
cat >"$WORK/$MARK.sh" <<'EOF'
#!/bin/sh
while :; do ls / >/dev/null; x=$(date); sleep 0.1; done
EOF
chmod +x "$WORK/$MARK.sh"

stop_early() {  # label, output, record args...
  local label=$1 out=$2
  shift 2
  "$CLI" record "$@" --time 0 -o "$out" >"$WORK/$label.log" 2>&1 &
  local rec=$!
  for _ in $(seq 150); do grep -q "^Recording" "$WORK/$label.log" 2>/dev/null && break; sleep 0.1; done
  sleep 2
  pgrep -f "$MARK" >/dev/null || fail "$label: the program is not running: $(cat "$WORK/$label.log")"
  kill -INT $rec
  for _ in $(seq 300); do kill -0 $rec 2>/dev/null || break; sleep 0.1; done
  kill -0 $rec 2>/dev/null && { kill $rec; fail "$label: stop early hung"; }
  wait $rec || { cat "$WORK/$label.log"; fail "$label: stop early failed"; }
  grep -q "is stopped too" "$WORK/$label.log" || fail "$label: did not say the program stops"
  sleep 0.5
  if pgrep -f "$MARK" >/dev/null; then fail "$label: the program still runs after Stop"; fi
  [ -s "$out" ] || fail "$label: no trace"
}

# 1. Native heap profile through the double: program under fathom-heapprofd.
if [ -x "$DEVICE_DIR/fathom-heapprofd" ]; then
  stop_early heap "$WORK/heap.pftrace" -s "127.0.0.1:$PORT" --preset native-heap --app "$WORK/$MARK.sh"
  n=$("$CLI" query "$WORK/heap.pftrace" "select count(*) from heap_profile_allocation" --format csv | tail -1)
  # The troubleshooting hint follows what the trace holds: an empty profile
  # is explained, a non-empty one is not.
  if [ "${n:-0}" = 0 ]; then
    grep -q "made no sampled allocation" "$WORK/heap.log" || fail "heap: empty profile not explained: $(cat "$WORK/heap.log")"
  else
    grep -q "made no sampled allocation" "$WORK/heap.log" && fail "heap: a non-empty profile called empty"
  fi
  echo "heap via the double: ok (program stopped, $n allocation rows)"
  stop_early heap-local "$WORK/heap-local.pftrace" --local --preset native-heap --app "$WORK/$MARK.sh"
  echo "heap on this computer: ok (program stopped)"
else
  echo "SKIP: fathom-heapprofd not built"
fi

# 2. Java allocations through the double: the JVM gets SIGTERM, the agent
#    writes its log on the way out, the log travels with the trace.
if [ -n "$JAVA_CLASSES" ] && command -v java >/dev/null; then
  stop_early java "$WORK/java.pftrace" -s "127.0.0.1:$PORT" --preset java-alloc \
    --app "java -Dmark=$MARK -cp $JAVA_CLASSES AllocWorkload 2000000000 0 0"
  n=$("$CLI" query "$WORK/java.pftrace" "select count(*) from stack_profile_frame where name like '%makePoints%'" --format csv | tail -1)
  [ "${n:-0}" -ge 1 ] 2>/dev/null || fail "java: makePoints is not among the frames after Stop"
  echo "java via the double: ok (JVM stopped, log kept)"
else
  echo "SKIP: java or the AllocWorkload classes are missing"
fi
echo PASS
