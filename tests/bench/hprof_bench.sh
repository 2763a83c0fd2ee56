#!/usr/bin/env bash
# HPROF load benchmark: a JDK program fills its heap with many small objects
# (linked nodes with strings and small arrays: ~4 objects per 90 bytes, so
# --mb 1200 gives tens of millions of objects), `jcmd GC.heap_dump` writes it
# to $BENCH_DIR, then
#   - fathom-cli loads it and counts heap_graph_object rows,
#   - fathom-bench-heap-explorer --hprof loads it and runs the heap
#     explorer's analysis (dominators, retained sizes) and contents pass
#     (duplicates, leaks),
#   - the oracle (trace_processor_shell v58.2) loads it and counts rows.
# Prints one table: file size, wall time, MB/s, peak RSS (/usr/bin/time -v)
# and the row count of each, then the explorer bench's own phase lines.
#
#   tests/bench/hprof_bench.sh [--mb 1200] [--keep] [--dump-only]
#                              [--oracle-timeout SECONDS] [--oracle-mem-gb GB]
#
# --mb is the approximate live heap to dump (the file comes out about 1.6x
# that). The dump is reused when present and deleted at the end unless
# --keep. The oracle needs several times Fathom's memory on these dumps: it
# runs under a timeout and a watcher that stops it (by its pid) when its
# resident set passes --oracle-mem-gb (an address-space cap does not work:
# it reserves far more than it touches and dies at half the cap), and the
# table says when it hit either. BUILD_DIR selects the build tree (default: build); ORACLE the
# oracle binary (ORACLE= skips it). Needs a JDK (javac, java, jcmd). Not a
# ctest: minutes to hours on a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR="${BUILD_DIR:-build}"
BENCH_DIR="${BENCH_DIR:-/tmp}"
ORACLE="${ORACLE-/work/shared/oracle/trace_processor_shell}"
MB=1200 KEEP=0 DUMP_ONLY=0 ORACLE_TIMEOUT=3600 ORACLE_MEM_GB=14
while [ $# -gt 0 ]; do
  case "$1" in
    --mb) MB="$2"; shift ;;
    --keep) KEEP=1 ;;
    --dump-only) DUMP_ONLY=1; KEEP=1 ;;
    --oracle-timeout) ORACLE_TIMEOUT="$2"; shift ;;
    --oracle-mem-gb) ORACLE_MEM_GB="$2"; shift ;;
    *) echo "usage: $0 [--mb 1200] [--keep] [--dump-only] [--oracle-timeout S] [--oracle-mem-gb GB]" >&2; exit 2 ;;
  esac
  shift
done
for tool in javac java jcmd; do
  command -v "$tool" >/dev/null || { echo "hprof_bench: no $tool (needs a JDK)" >&2; exit 0; }
done
CLI="$BUILD_DIR/bin/fathom-cli"
EXPLORER="$BUILD_DIR/bin/fathom-bench-heap-explorer"

DUMP="$BENCH_DIR/fathom_bench_${MB}mb.hprof"
[ "$KEEP" = 1 ] || trap 'rm -f "$DUMP"' EXIT
if [ ! -s "$DUMP" ]; then
  work="$(mktemp -d)"
  cat >"$work/Fill.java" <<'JAVA'
import java.util.*;
public class Fill {
  static final class Item { Item next; String name; int[] small; long v; Item(Item n, long v) { next = n; this.v = v; name = "i" + (v % 100000); small = new int[(int) (v % 4)]; } }
  // Static, so the JIT cannot treat them as dead while main sleeps.
  static final List<Item> heads = new ArrayList<>();
  static final Map<Long, Item> index = new HashMap<>();
  public static void main(String[] a) throws Exception {
    long target = Long.parseLong(a[0]) << 20;
    Item head = null;
    for (long i = 0; ; i++) {
      head = new Item(head, i);
      if (i % 1000 == 0) { heads.add(head); head = null; }
      if (i % 7 == 0) index.put(i, head);
      // Used heap includes garbage: check the live size after a GC.
      if (i % 1_000_000 == 0 && i > 0) {
        System.gc();
        long used = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
        if (used >= target) break;
      }
    }
    System.out.println("READY " + heads.size());
    System.out.flush();
    Thread.sleep(3_600_000);
  }
}
JAVA
  javac -d "$work" "$work/Fill.java"
  java -Xmx$((MB * 5 / 2))m -XX:+UseParallelGC -cp "$work" Fill "$MB" >"$work/out" 2>&1 &
  pid=$!
  for _ in $(seq 3600); do grep -q READY "$work/out" 2>/dev/null && break; sleep 0.5; done
  jcmd "$pid" GC.heap_dump "$DUMP" >/dev/null
  kill "$pid"
  rm -rf "$work"
fi
[ "$DUMP_ONLY" = 1 ] && { ls -l "$DUMP"; exit 0; }
[ -x "$CLI" ] || cmake --build "$BUILD_DIR" --target fathom-cli
[ -x "$EXPLORER" ] || cmake --build "$BUILD_DIR" --target fathom-bench-heap-explorer

echo "select count(*) from heap_graph_object;" >"$BENCH_DIR/fathom_bench_hprof.sql"
ERR="$BENCH_DIR/fathom_bench_hprof.err"
measure() {  # name command...: prints name,seconds,rss_kb,rows,exit
  local name="$1"; shift
  local t0 t1 out rc=0
  t0=$(date +%s.%N)
  out=$(/usr/bin/time -v "$@" 2>"$ERR" | tee "$BENCH_DIR/fathom_bench_hprof.$name.out" |
        tr -d '"' | grep -E '^[0-9]+$' | tail -1) || rc=$?
  t1=$(date +%s.%N)
  rc=$(grep -o 'Exit status: [0-9]*' "$ERR" | cut -d' ' -f3 || echo "$rc")
  grep -q 'signal' "$ERR" && rc="$(grep -o 'signal [0-9]*' "$ERR" | head -1)"
  echo "$name,$(echo "$t1 - $t0" | bc),$(grep -o 'Maximum resident set size (kbytes): [0-9]*' "$ERR" | grep -o '[0-9]*$'),${out:-?},${rc:-?}"
}
size_mb=$(echo "scale=1; $(stat -c %s "$DUMP") / 1048576" | bc)
rows=("$(measure fathom "$CLI" query "$DUMP" "select count(*) from heap_graph_object" --format csv)")
rows+=("$(measure explorer "$EXPLORER" --hprof "$DUMP")")
explorer_lines="$(cat "$BENCH_DIR/fathom_bench_hprof.explorer.out")"
watch_rss() {  # stops the oracle when its resident set passes the limit
  local pid=""
  for _ in $(seq 50); do
    pid=$(pgrep -n -f "^$ORACLE query -f $BENCH_DIR/fathom_bench_hprof.sql" || true)
    [ -n "$pid" ] && break
    sleep 0.2
  done
  while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; do
    rss=$(awk '/VmRSS/{print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
    if [ "${rss:-0}" -gt $((ORACLE_MEM_GB << 20)) ]; then
      echo "oracle stopped at ${rss} kB resident" >"$BENCH_DIR/fathom_bench_hprof.watch"
      kill "$pid"
      break
    fi
    sleep 1
  done
}
rm -f "$BENCH_DIR/fathom_bench_hprof.watch"
if [ -n "$ORACLE" ] && [ -x "$ORACLE" ]; then
  watch_rss &
  rows+=("$(measure oracle timeout "$ORACLE_TIMEOUT" \
            "$ORACLE" query -f "$BENCH_DIR/fathom_bench_hprof.sql" "$DUMP")")
  wait
fi
printf '%-9s %-30s %8s %8s %8s %9s %12s %s\n' run dump MB wall_s MB/s rss_MB objects exit
for r in "${rows[@]}"; do
  IFS=, read -r name secs rss objs rc <<<"$r"
  printf '%-9s %-30s %8s %8.1f %8.1f %9d %12s %s\n' "$name" "$(basename "$DUMP")" "$size_mb" "$secs" \
    "$(echo "$size_mb / $secs" | bc -l)" "$((${rss:-0} / 1024))" "$objs" "$rc"
done
[ -f "$BENCH_DIR/fathom_bench_hprof.watch" ] && cat "$BENCH_DIR/fathom_bench_hprof.watch"
echo "explorer phases:"
echo "$explorer_lines"
