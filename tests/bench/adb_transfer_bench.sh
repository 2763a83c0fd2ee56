#!/usr/bin/env bash
# Push and pull one file through fathom-test-adbd (the adbd double over TCP)
# with Fathom (direct, and through Debian's adb server) and with Debian's adb,
# in the same run: throughput (best of REPS=3), peak RSS of the client, Fathom/adb ratios.
#   [REPS=3] adb_transfer_bench.sh FATHOM_CLI FATHOM_TEST_ADBD [SIZE_MB=256]
# Not a pass/fail test: it fails only if a transfer fails or corrupts data.
set -uo pipefail
CLI=$1 ADBD=$2 MB=${3:-256}
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  [ -n "${ADB_STARTED:-}" ] && adb kill-server >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT
export HOME=$WORK/home ANDROID_ADB_SERVER_PORT=$((20000 + RANDOM % 20000))
unset ANDROID_SERIAL XDG_CONFIG_HOME ADB_SERVER_SOCKET ANDROID_USER_HOME
mkdir -p "$HOME" "$WORK/dev"
command -v adb >/dev/null || { echo "adb not installed: no comparison"; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (package time)"; exit 1; }

"$ADBD" --allow-any-key >"$WORK/adbd.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do grep -q listening "$WORK/adbd.out" && break; sleep 0.1; done
SERIAL=127.0.0.1:$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/adbd.out")
head -c $((MB * 1024 * 1024)) /dev/urandom >"$WORK/src"

# run LABEL CMD...: best of $REPS runs (the machine is shared; the minimum is the least
# disturbed), printed with peak RSS; fails on error. Leaves the time in $SECS.
REPS=${REPS:-3}
run() {
  local label=$1 best="" rss=0 t0 t1 secs
  shift
  for _ in $(seq "$REPS"); do
    t0=$(date +%s.%N)
    /usr/bin/time -f %M -o "$WORK/rss" "$@" >/dev/null 2>"$WORK/err" </dev/null \
      || { echo "FAIL: $label: $(cat "$WORK/err")"; exit 1; }
    t1=$(date +%s.%N)
    secs=$(echo "$t1 - $t0" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$secs < $best" | bc -l)" = 1 ]; then best=$secs; fi
    [ "$(tail -1 "$WORK/rss")" -gt "$rss" ] && rss=$(tail -1 "$WORK/rss")
  done
  SECS=$best
  printf '  %-30s %7.3f s  %8.1f MB/s  peak RSS %6d KiB\n' "$label" "$SECS" \
    "$(echo "$MB * 1.048576 / $SECS" | bc -l)" "$rss"
}
check() { cmp -s "$WORK/src" "$1" || { echo "FAIL: $2: data differs"; exit 1; }; }

declare -A T
echo "adb transfer benchmark: $MB MiB through fathom-test-adbd ($SERIAL), best of $REPS"
run "fathom push (direct tcp)" "$CLI" push -s "$SERIAL" --transport tcp "$WORK/src" "$WORK/dev/a"
T[fpush]=$SECS; check "$WORK/dev/a" "fathom push"
run "fathom pull (direct tcp)" "$CLI" pull -s "$SERIAL" --transport tcp "$WORK/dev/a" "$WORK/b"
T[fpull]=$SECS; check "$WORK/b" "fathom pull"
rm -f "$WORK/dev/a" "$WORK/b"

if command -v adb >/dev/null; then
  ADB_STARTED=1
  adb start-server >/dev/null 2>&1
  adb connect "$SERIAL" >/dev/null 2>&1
  for _ in $(seq 50); do adb devices | grep -q "^$SERIAL.device" && break; sleep 0.2; done
  run "adb push (adb server)" adb -s "$SERIAL" push "$WORK/src" "$WORK/dev/a"
  T[apush]=$SECS; check "$WORK/dev/a" "adb push"
  run "adb pull (adb server)" adb -s "$SERIAL" pull "$WORK/dev/a" "$WORK/b"
  T[apull]=$SECS; check "$WORK/b" "adb pull"
  rm -f "$WORK/dev/a" "$WORK/b"
  run "fathom push (via adb server)" "$CLI" push -s "$SERIAL" --transport server "$WORK/src" "$WORK/dev/a"
  T[spush]=$SECS; check "$WORK/dev/a" "fathom push via server"
  run "fathom pull (via adb server)" "$CLI" pull -s "$SERIAL" --transport server "$WORK/dev/a" "$WORK/b"
  T[spull]=$SECS; check "$WORK/b" "fathom pull via server"
  ratio() { echo "scale=2; $1 / $2" | bc -l; }
  echo "ratio (Fathom throughput / adb throughput, target >= 1.0):"
  echo "  push: direct $(ratio "${T[apush]}" "${T[fpush]}")x, via server $(ratio "${T[apush]}" "${T[spush]}")x"
  echo "  pull: direct $(ratio "${T[apull]}" "${T[fpull]}")x, via server $(ratio "${T[apull]}" "${T[spull]}")x"
fi
