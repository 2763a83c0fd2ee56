#!/usr/bin/env bash
# Load benchmark: generates 100 MB and 1 GB traces (full sched events and
# compact_sched) into $BENCH_DIR (default /tmp) and loads each with
# fathom-bench-load, printing one table.
#
#   tests/bench/run_bench.sh [--huge] [--sizes "100 1000"]
#
# --huge adds a 4200 MB trace (the >4 GiB streaming check: offsets and sizes
# must not wrap at 32 bits). Traces are reused when already present.
# BUILD_DIR selects the build tree (default: build).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR="${BUILD_DIR:-build}"
BENCH_DIR="${BENCH_DIR:-/tmp}"
SIZES="100 1000"
while [ $# -gt 0 ]; do
  case "$1" in
    --huge) SIZES="$SIZES 4200" ;;
    --sizes) SIZES="$2"; shift ;;
    *) echo "usage: $0 [--huge] [--sizes \"100 1000\"]" >&2; exit 2 ;;
  esac
  shift
done

GEN="$BUILD_DIR/bin/fathom-tracegen"
LOAD="$BUILD_DIR/bin/fathom-bench-load"
if [ ! -x "$GEN" ] || [ ! -x "$LOAD" ]; then
  cmake --build "$BUILD_DIR" --target fathom-tracegen fathom-bench-load
fi

rows=()
for size in $SIZES; do
  for enc in full compact; do
    trace="$BENCH_DIR/fathom_bench_${size}mb_${enc}.pftrace"
    if [ ! -s "$trace" ]; then
      flag=""
      [ "$enc" = compact ] && flag="--compact"
      "$GEN" --size-mb "$size" $flag --out "$trace" >/dev/null
    fi
    rows+=("$enc,$("$LOAD" "$trace" --csv)")
  done
done

printf '%-8s %-44s %8s %7s %8s %11s %11s %7s %8s %8s %10s\n' \
  encoding trace MB load_s MB/s events events/s B/event rss_MB query_s sched_rows
for r in "${rows[@]}"; do
  IFS=, read -r enc file mb load mbs events evs bpe rss q sched counter slice <<<"$r"
  printf '%-8s %-44s %8s %7s %8s %11s %11s %7s %8s %8s %10s\n' \
    "$enc" "$(basename "$file")" "$mb" "$load" "$mbs" "$events" "$evs" "$bpe" "$rss" "$q" "$sched"
done

# Hostile input (issue 31): 2,000 chained clock snapshots, which once took
# 26-58 s (clock paths were searched again after every snapshot).
CLOCK_CHAIN="${SHARED_DIR:-../shared}/reliability/clock_chain_2000.pftrace"
if [ -s "$CLOCK_CHAIN" ]; then
  printf '\n%s\n' "$(basename "$CLOCK_CHAIN")"
  "$LOAD" "$CLOCK_CHAIN" --load-only
fi
