#!/usr/bin/env bash
# SPAN_JOIN benchmark: Fathom against upstream's trace_processor_shell on a
# generated trace (fathom-tracegen, default 100 MB). The join is every sched
# slice against per-CPU frequency spans, both PARTITIONED cpu:
#
#   tests/bench/span_join_bench.sh [--size-mb 100]
#
# Each side runs the query twice: once preparing the two input tables only
# (baseline: load + the inputs), once with the SPAN_JOIN counted on top. The
# join's time is the difference; rows/s is joined rows over that time. Peak
# RSS is the whole process's (/usr/bin/time). BUILD_DIR, BENCH_DIR and
# REFERENCE_TP (default $SHARED_DIR/oracle/trace_processor_shell, SHARED_DIR
# defaulting to ../shared) can be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR="${BUILD_DIR:-build}"
BENCH_DIR="${BENCH_DIR:-/tmp}"
REFERENCE_TP="${REFERENCE_TP:-${SHARED_DIR:-../shared}/oracle/trace_processor_shell}"
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
if [ ! -x "$GEN" ] || [ ! -x "$CLI" ]; then
  cmake --build "$BUILD_DIR" --target fathom-tracegen fathom-cli
fi
trace="$BENCH_DIR/fathom_bench_${SIZE}mb_full.pftrace"
[ -s "$trace" ] || "$GEN" --size-mb "$SIZE" --out "$trace" >/dev/null

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The inputs: frequency spans from the cpufreq counters (each value holds
# until the next one on its CPU), and the sched slices.
cat >"$work/inputs.sql" <<'SQL'
CREATE PERFETTO TABLE bench_freq AS
SELECT c.ts,
       LEAD(c.ts, 1, (SELECT end_ts FROM trace_bounds))
         OVER (PARTITION BY c.track_id ORDER BY c.ts) - c.ts AS dur,
       t.cpu, c.value AS freq
FROM counter AS c JOIN cpu_counter_track AS t ON c.track_id = t.id
WHERE t.name = 'cpufreq';
CREATE PERFETTO TABLE bench_sched AS SELECT ts, dur, cpu, utid FROM sched WHERE dur >= 0;
SQL
{ cat "$work/inputs.sql"; echo "SELECT (SELECT COUNT(*) FROM bench_freq) AS freq_rows, (SELECT COUNT(*) FROM bench_sched) AS sched_rows;"; } >"$work/base.sql"
{ cat "$work/inputs.sql"; cat <<'SQL'; } >"$work/join.sql"
CREATE VIRTUAL TABLE bench_sj USING SPAN_JOIN(bench_sched PARTITIONED cpu, bench_freq PARTITIONED cpu);
SELECT COUNT(*) AS joined_rows, SUM(dur) AS joined_dur FROM bench_sj;
SQL

# run NAME CMD... -> "wall_s peak_rss_mb" and the query's last output line.
run() {
  local out="$work/$1.out" tm="$work/$1.time"
  shift
  /usr/bin/time -f "%e %M" -o "$tm" "$@" >"$out" 2>/dev/null
  echo "$(awk '{printf "%s %.0f", $1, $2/1024}' "$tm") $(tail -n 1 "$out")"
}

printf '%-10s %9s %9s %12s %14s %10s %10s\n' side base_s full_s join_s joined_rows rows/s rss_MB
for side in fathom reference; do
  if [ "$side" = fathom ]; then
    cmd=("$CLI" query "$trace" --format csv -f)
  else
    [ -x "$REFERENCE_TP" ] || { echo "reference: no $REFERENCE_TP, skipped"; continue; }
    cmd=("$REFERENCE_TP" query -f)
  fi
  if [ "$side" = fathom ]; then
    read -r base_s _ _ <<<"$(run "${side}_base" "${cmd[@]}" "$work/base.sql")"
    read -r full_s rss res <<<"$(run "${side}_join" "${cmd[@]}" "$work/join.sql")"
  else
    read -r base_s _ _ <<<"$(run "${side}_base" "${cmd[@]}" "$work/base.sql" "$trace")"
    read -r full_s rss res <<<"$(run "${side}_join" "${cmd[@]}" "$work/join.sql" "$trace")"
  fi
  rows="${res%%,*}"
  awk -v s="$side" -v b="$base_s" -v f="$full_s" -v r="$rows" -v m="$rss" 'BEGIN {
    j = f - b; if (j < 0.001) j = 0.001;
    printf "%-10s %9.2f %9.2f %12.2f %14s %10.0f %10s\n", s, b, f, j, r, r / j, m }'
  echo "  $side answer: $res"
done
