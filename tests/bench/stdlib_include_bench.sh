#!/usr/bin/env bash
# Standard-library include benchmark (issue 28 item 4): the 15 most used
# modules included, then one query over each, on a generated trace
# (fathom-tracegen, default 100 MB), Fathom against upstream's
# trace_processor_shell doing the same:
#
#   tests/bench/stdlib_include_bench.sh [--size-mb 100]
#
# Each side runs twice: the trace load with `SELECT 1` (baseline), then the
# load with the includes and the queries. The includes' and queries' time is
# the difference, in wall seconds and in CPU seconds (user + system: the
# figure to compare on a busy machine). Peak RSS is the whole process's
# (/usr/bin/time). FATHOM_SQL_PROFILE=FILE set for the run makes Fathom list
# each module statement's own time in FILE. BUILD_DIR,
# BENCH_DIR, STDLIB (default $SHARED_DIR/perfetto-stdlib) and REFERENCE_TP
# (default $SHARED_DIR/oracle/trace_processor_shell, SHARED_DIR defaulting to
# ../shared) can be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR="${BUILD_DIR:-build}"
BENCH_DIR="${BENCH_DIR:-/tmp}"
SHARED_DIR="${SHARED_DIR:-../shared}"
STDLIB="${STDLIB:-$SHARED_DIR/perfetto-stdlib}"
REFERENCE_TP="${REFERENCE_TP:-$SHARED_DIR/oracle/trace_processor_shell}"
SIZE=100
while [ $# -gt 0 ]; do
  case "$1" in
    --size-mb) SIZE="$2"; shift ;;
    *) echo "usage: $0 [--size-mb N]" >&2; exit 2 ;;
  esac
  shift
done

GEN="$BUILD_DIR/bin/fathom-tracegen"
CLI="$BUILD_DIR/bin/fathom-cli"
[ -x "$CLI" ] || cmake --build "$BUILD_DIR" --target fathom-cli
trace="$BENCH_DIR/fathom_bench_${SIZE}mb_full.pftrace"
if [ ! -s "$trace" ]; then
  [ -x "$GEN" ] || cmake --build "$BUILD_DIR" --target fathom-tracegen
  "$GEN" --size-mb "$SIZE" --out "$trace" >/dev/null
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "SELECT 1 AS x;" >"$work/baseline.sql"
cat >"$work/modules.sql" <<'SQL'
INCLUDE PERFETTO MODULE slices.with_context;
INCLUDE PERFETTO MODULE intervals.intersect;
INCLUDE PERFETTO MODULE counters.intervals;
INCLUDE PERFETTO MODULE sched.states;
INCLUDE PERFETTO MODULE sched.thread_level_parallelism;
INCLUDE PERFETTO MODULE linux.cpu.frequency;
INCLUDE PERFETTO MODULE linux.cpu.utilization.process;
INCLUDE PERFETTO MODULE android.startup.startups;
INCLUDE PERFETTO MODULE android.memory.heap_graph.dominator_tree;
INCLUDE PERFETTO MODULE android.memory.heap_profile.summary_tree;
INCLUDE PERFETTO MODULE android.memory.lmk;
INCLUDE PERFETTO MODULE android.process_metadata;
INCLUDE PERFETTO MODULE callstacks.stack_profile;
INCLUDE PERFETTO MODULE viz.summary.slices;
INCLUDE PERFETTO MODULE android.binder;
CREATE PERFETTO TABLE _bench_a AS SELECT id, ts, dur, utid FROM sched WHERE dur > 0;
CREATE PERFETTO TABLE _bench_b AS SELECT id, ts, dur, utid FROM thread_state WHERE dur > 0;
SELECT
  (SELECT count(*) FROM thread_slice) AS thread_slices,
  (SELECT count(*) FROM _interval_intersect!((_bench_a, _bench_b), (utid))) AS intersections,
  (SELECT count(*) FROM counter_leading_intervals!(counter)) AS counter_intervals,
  (SELECT sched_state_to_human_readable_string('R+')) AS state,
  (SELECT count(*) FROM sched_runnable_thread_count) AS runnable_changes,
  (SELECT count(*) FROM cpu_frequency_counters) AS freq_counters,
  (SELECT count(*) FROM cpu_cycles_per_process) AS process_cycles,
  (SELECT count(*) FROM android_startups) AS startups,
  (SELECT count(*) FROM heap_graph_dominator_tree) AS dominator_nodes,
  (SELECT count(*) FROM android_heap_profile_summary_tree) AS heap_profile_nodes,
  (SELECT count(*) FROM android_lmk_events) AS lmks,
  (SELECT count(*) FROM android_process_metadata) AS processes,
  (SELECT count(*) FROM _callstack_spc_forest) AS callsites,
  (SELECT count(*) FROM _slice_track_summary) AS slice_tracks,
  (SELECT count(*) FROM android_binder_txns) AS binder_txns;
SQL

# run NAME CMD...: prints "NAME seconds peak_kb cpu_seconds", the query's rows to $work/NAME.out
run() {
  local name="$1"; shift
  /usr/bin/time -f "%e %M %U %S" -o "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err" || {
    echo "$name failed:" >&2; tail -5 "$work/$name.err" >&2; return 1; }
  echo "$name $(awk '{ printf "%s %s %.2f", $1, $2, $3 + $4 }' "$work/$name.time")"
}

echo "trace: $trace ($(du -m "$trace" | cut -f1) MB)"
results=()
fathom=("$CLI" query "$trace" --format csv --override-stdlib "$STDLIB" -f)
# The oracle uses its built-in library: the same v58.2 modules.
oracle=("$REFERENCE_TP" query -f)
results+=("$(run fathom_base "${fathom[@]}" "$work/baseline.sql")")
results+=("$(run fathom_modules "${fathom[@]}" "$work/modules.sql")")
if [ -x "$REFERENCE_TP" ]; then
  results+=("$(run oracle_base "${oracle[@]}" "$work/baseline.sql" "$trace")")
  results+=("$(run oracle_modules "${oracle[@]}" "$work/modules.sql" "$trace")")
fi
printf '%s\n' "${results[@]}" | awk '
  { t[$1] = $2; m[$1] = $3; c[$1] = $4 }
  END {
    printf "%-8s %8s %9s %14s %10s %15s %8s\n", "side", "load s", "total s", "includes+q s",
           "load cpu", "includes+q cpu", "peak MB"
    n = split("fathom oracle", sides, " ")
    for (i = 1; i <= n; i++) {
      s = sides[i]
      if (!((s "_modules") in t)) continue
      printf "%-8s %8.2f %9.2f %14.2f %10.2f %15.2f %8.0f\n", s, t[s "_base"], t[s "_modules"],
             t[s "_modules"] - t[s "_base"], c[s "_base"], c[s "_modules"] - c[s "_base"],
             m[s "_modules"] / 1024
    }
  }'
echo "Fathom's answers:"; cat "$work/fathom_modules.out"
if [ -f "$work/oracle_modules.out" ]; then echo "Oracle's answers:"; grep -v "^$" "$work/oracle_modules.out"; fi
