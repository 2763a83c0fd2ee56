#!/usr/bin/env bash
# Push and pull one file through fathom-test-adbd (the adbd double over TCP)
# with Fathom (direct, and through Debian's adb server) and with Debian's adb,
# in the same run, interleaved: throughput (best of REPS=3), peak RSS of the client,
# Fathom/adb ratios. Sync form: whatever the double offers (v1 by default, as Debian's adb 29
# knows no other); FATHOM_ADB_SYNC=v2|zstd|... and ADBD_FLAGS="--features ..." change it.
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

# shellcheck disable=SC2086 # ADBD_FLAGS is a word list
"$ADBD" --allow-any-key ${ADBD_FLAGS:-} >"$WORK/adbd.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 300); do grep -q listening "$WORK/adbd.out" && break; sleep 0.1; done
SERIAL=127.0.0.1:$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/adbd.out")
head -c $((MB * 1024 * 1024)) /dev/urandom >"$WORK/src"
sync  # not written back during the first timed runs

# The ops run interleaved, one of each per round in alternating order, so a change in the
# shared machine's load hits Fathom and adb alike; each op keeps its best (least disturbed)
# time. Every op starts after `sync` with no destination file, so no op pays for writing
# back or truncating the previous op's 256 MiB.
REPS=${REPS:-3}
declare -A T RSS
# once KEY LABEL DEST CMD...: one timed run; fails on error or differing data.
once() {
  local key=$1 label=$2 dest=$3 t0 t1 secs rss
  shift 3
  rm -f "$dest"
  sync
  t0=$(date +%s.%N)
  /usr/bin/time -f %M -o "$WORK/rss" "$@" >/dev/null 2>"$WORK/err" </dev/null \
    || { echo "FAIL: $label: $(cat "$WORK/err")"; exit 1; }
  t1=$(date +%s.%N)
  cmp -s "$WORK/src" "$dest" || { echo "FAIL: $label: data differs"; exit 1; }
  rm -f "$dest"
  secs=$(echo "$t1 - $t0" | bc -l)
  if [ -z "${T[$key]:-}" ] || [ "$(echo "$secs < ${T[$key]}" | bc -l)" = 1 ]; then T[$key]=$secs; fi
  rss=$(tail -1 "$WORK/rss")
  [ "$rss" -gt "${RSS[$key]:-0}" ] && RSS[$key]=$rss
}

HAVE_ADB=""
if command -v adb >/dev/null; then
  HAVE_ADB=1 ADB_STARTED=1
  adb start-server >/dev/null 2>&1
  adb connect "$SERIAL" >/dev/null 2>&1
  for _ in $(seq 50); do adb devices | grep -q "^$SERIAL.device" && break; sleep 0.2; done
fi
cp "$WORK/src" "$WORK/dev/p"  # what the pulls read (the "device" is this machine)
# Fathom's first connection creates ~/.android/adbkey (adb's server did at start-server).
"$CLI" shell -s "$SERIAL" --transport tcp true >/dev/null 2>&1 </dev/null
D=$WORK/dev/a B=$WORK/b P=$WORK/dev/p
OPS=(fpush fpull)
[ -n "$HAVE_ADB" ] && OPS+=(apush apull spush spull)
declare -A LABEL=(
  [fpush]="fathom push (direct tcp)" [fpull]="fathom pull (direct tcp)"
  [apush]="adb push (adb server)" [apull]="adb pull (adb server)"
  [spush]="fathom push (via adb server)" [spull]="fathom pull (via adb server)")
op() {
  case $1 in
    fpush) once "$1" "${LABEL[$1]}" "$D" "$CLI" push -s "$SERIAL" --transport tcp "$WORK/src" "$D" ;;
    fpull) once "$1" "${LABEL[$1]}" "$B" "$CLI" pull -s "$SERIAL" --transport tcp "$P" "$B" ;;
    apush) once "$1" "${LABEL[$1]}" "$D" adb -s "$SERIAL" push "$WORK/src" "$D" ;;
    apull) once "$1" "${LABEL[$1]}" "$B" adb -s "$SERIAL" pull "$P" "$B" ;;
    spush) once "$1" "${LABEL[$1]}" "$D" "$CLI" push -s "$SERIAL" --transport server "$WORK/src" "$D" ;;
    spull) once "$1" "${LABEL[$1]}" "$B" "$CLI" pull -s "$SERIAL" --transport server "$P" "$B" ;;
  esac
}

echo "adb transfer benchmark: $MB MiB through fathom-test-adbd ($SERIAL), best of $REPS, interleaved"
for rep in $(seq "$REPS"); do
  order=("${OPS[@]}")
  [ $((rep % 2)) = 0 ] && order=($(printf '%s\n' "${OPS[@]}" | tac))
  for o in "${order[@]}"; do op "$o"; done
done
for o in "${OPS[@]}"; do
  printf '  %-30s %7.3f s  %8.1f MB/s  peak RSS %6d KiB\n' "${LABEL[$o]}" "${T[$o]}" \
    "$(echo "$MB * 1.048576 / ${T[$o]}" | bc -l)" "${RSS[$o]}"
done
if [ -n "$HAVE_ADB" ]; then
  ratio() { echo "scale=2; $1 / $2" | bc -l; }
  echo "ratio (Fathom throughput / adb throughput, target >= 1.0):"
  echo "  push: direct $(ratio "${T[apush]}" "${T[fpush]}")x, via server $(ratio "${T[apush]}" "${T[spush]}")x"
  echo "  pull: direct $(ratio "${T[apull]}" "${T[fpull]}")x, via server $(ratio "${T[apull]}" "${T[spull]}")x"
fi
