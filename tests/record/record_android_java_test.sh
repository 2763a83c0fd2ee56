#!/usr/bin/env bash
# Java allocation sampling in an Android app, end to end, without a phone:
# fathom-test-adbd runs this machine's shell with fake Android tools first on
# its PATH (fake_android/: getprop, run-as, am, cmd, pidof). The "app" is a
# real JVM that the fake `am start --attach-agent` launches with -agentpath,
# so Fathom's real agent writes a real log that is read back through run-as,
# pulled and imported. Also: a running app gets the agent through `cmd
# activity attach-agent` (the JDK attach mechanism here), a non-debuggable app
# is refused in plain words, a missing ABI build is named, and Stop ends the app.
set -uo pipefail
CLI=$1 ADBD=$2 DEVICE_DIR=$3 JAVA_CLASSES=${4:-}
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -z "$JAVA_CLASSES" ] || ! command -v java >/dev/null; then
  echo "SKIP: java or the AllocWorkload classes are missing"; exit 0
fi
WORK=$(mktemp -d)
ADBD_PID=
cleanup() {
  [ -n "$ADBD_PID" ] && kill "$ADBD_PID" 2>/dev/null
  for f in "$WORK"/android/run/*.pid; do [ -e "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done
  if [ -n "${KEEP:-}" ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
export HOME=$WORK/home FATHOM_DEVICE_DIR=$DEVICE_DIR
mkdir -p "$HOME"

# The fake device: properties, two installed apps (one debuggable), data dirs.
FAKE=$WORK/android
mkdir -p "$FAKE/apps" "$FAKE/data" "$FAKE/run" "$FAKE/tmp"
case $(uname -m) in x86_64) ABI=x86_64 ;; aarch64) ABI=arm64-v8a ;; *) ABI=$(uname -m) ;; esac
set_props() {  # abi
  printf '%s\n' ro.build.version.sdk=34 ro.build.version.release=14 \
    "ro.product.model=Fathom fake phone" "ro.product.cpu.abi=$1" ro.build.type=user \
    persist.traced.enable=1 >"$FAKE/props"
}
set_props "$ABI"
APP=com.fathom.allocapp
# Allocates Points in makePoints until stopped (2e9 of them take minutes).
echo "-cp $JAVA_CLASSES AllocWorkload 2000000000 0 0" >"$FAKE/apps/$APP"
touch "$FAKE/apps/$APP.debuggable"
echo "-cp $JAVA_CLASSES AllocWorkload 1000 0 0" >"$FAKE/apps/com.fathom.release"

FATHOM_FAKE_ANDROID=$FAKE TMPDIR=$FAKE/tmp PATH="$HERE/fake_android:$PATH" \
  "$ADBD" --allow-any-key >"$WORK/adbd.out" 2>&1 &
ADBD_PID=$!
for _ in $(seq 300); do grep -q listening "$WORK/adbd.out" && break; sleep 0.1; done
PORT=$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/adbd.out")
[ -n "$PORT" ] || fail "fathom-test-adbd did not start"
SERIAL=127.0.0.1:$PORT

app_pid() { cat "$FAKE/run/$APP.pid" 2>/dev/null; }
check_alloc_trace() {  # file, label
  local folded
  folded=$("$CLI" flamegraph "$1" --kind java-samples --format folded 2>"$WORK/fg.err") \
    || fail "$2: no Java allocation flamegraph: $(cat "$WORK/fg.err")"
  echo "$folded" | grep -q 'AllocWorkload\$Point' || fail "$2: AllocWorkload\$Point missing: $(echo "$folded" | head -5)"
  echo "$folded" | grep -q 'makePoints' || fail "$2: makePoints missing from the stacks"
  echo "$2: ok ($(stat -c %s "$1") bytes, $(echo "$folded" | grep -c 'AllocWorkload\$Point') stacks with AllocWorkload\$Point)"
}

# 1. Cold start: am start --attach-agent, duration, app stopped, log pulled.
"$CLI" record -s "$SERIAL" --preset java-alloc --app "$APP" --time 3s -o "$WORK/cold.pftrace" \
  >"$WORK/cold.log" 2>&1 || { cat "$WORK/cold.log"; fail "cold start record failed"; }
grep -q "Android 14" "$WORK/cold.log" || fail "not detected as Android: $(head -3 "$WORK/cold.log")"
grep -q "am start --attach-agent" "$WORK/cold.log" || fail "am start --attach-agent not used"
check_alloc_trace "$WORK/cold.pftrace" "cold start"
pid=$(app_pid)
[ -n "$pid" ] && [ -d "/proc/$pid" ] && fail "the app still runs after the recording"
[ -e "$FAKE/data/$APP/code_cache/fathom-alloc.log" ] && fail "the log was left in the app's data dir"

# 2. A running app: cmd activity attach-agent (jcmd JVMTI.agent_load here).
(cd "$FAKE" && FATHOM_FAKE_ANDROID=$FAKE "$HERE/fake_android/am" start -n "$APP/.MainActivity" >/dev/null)
# Until its JVM answers the attach mechanism (a busy machine starts it slowly).
for _ in $(seq 40); do jcmd "$(app_pid)" VM.uptime >/dev/null 2>&1 && break; sleep 0.25; done
"$CLI" record -s "$SERIAL" --preset java-alloc --app "$APP" --time 3s -o "$WORK/attach.pftrace" \
  >"$WORK/attach.log" 2>&1 || { cat "$WORK/attach.log"; fail "attach record failed"; }
grep -q "attach-agent" "$WORK/attach.log" || fail "the running app was not attached to: $(cat "$WORK/attach.log")"
check_alloc_trace "$WORK/attach.pftrace" "running app"

# 3. Stop early (Ctrl-C) with no duration: the app is stopped and said so, the log kept.
"$CLI" record -s "$SERIAL" --preset java-alloc --app "$APP" --time 0 -o "$WORK/stop.pftrace" \
  >"$WORK/stop.log" 2>&1 &
REC=$!
for _ in $(seq 100); do grep -q "^Recording" "$WORK/stop.log" && break; sleep 0.1; done
sleep 2
pid=$(app_pid)
kill -INT $REC
for _ in $(seq 300); do kill -0 $REC 2>/dev/null || break; sleep 0.1; done
kill -0 $REC 2>/dev/null && { kill $REC; fail "stop early hung"; }
wait $REC || { cat "$WORK/stop.log"; fail "stop early failed"; }
grep -q "is stopped too" "$WORK/stop.log" || fail "stop early did not say the app stops: $(cat "$WORK/stop.log")"
[ -n "$pid" ] && [ -d "/proc/$pid" ] && fail "the app ($pid) still runs after Stop"
check_alloc_trace "$WORK/stop.pftrace" "stop early"

# 4. Not debuggable: refused before anything is pushed, in words a user can act on.
"$CLI" record -s "$SERIAL" --preset java-alloc --app com.fathom.release --time 2s \
  -o "$WORK/release.pftrace" >"$WORK/release.log" 2>&1 && fail "a non-debuggable app was recorded"
grep -q "com.fathom.release is not debuggable; Java allocation sampling needs android:debuggable=true (or a userdebug/eng build with root)" \
  "$WORK/release.log" || fail "unclear non-debuggable error: $(cat "$WORK/release.log")"
echo "not debuggable: ok"

# 5. A device ABI without a build of the agent: named, with where it was looked for.
OTHER=arm64-v8a; [ "$ABI" = arm64-v8a ] && OTHER=x86_64
set_props "$OTHER"
"$CLI" record -s "$SERIAL" --preset java-alloc --app "$APP" --time 2s -o "$WORK/abi.pftrace" \
  >"$WORK/abi.log" 2>&1 && fail "recorded without an agent for $OTHER"
grep -q "no libfathom_jvmti.so for $OTHER" "$WORK/abi.log" || fail "unclear ABI error: $(cat "$WORK/abi.log")"
grep -q "$OTHER/libfathom_jvmti.so" "$WORK/abi.log" || fail "the expected per-ABI path is not named"
echo "missing ABI build: ok"
echo PASS
