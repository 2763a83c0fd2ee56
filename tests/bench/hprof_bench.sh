#!/usr/bin/env bash
# HPROF load benchmark: a JDK program fills its heap with many small objects
# (linked nodes with strings and small arrays), `jcmd GC.heap_dump` writes it
# to $BENCH_DIR, then fathom-cli and the oracle (trace_processor_shell v58.2)
# each load it and count heap_graph_object rows. Prints one table: file size,
# wall time, MB/s, peak RSS (from /usr/bin/time) and the row count of each.
#
#   tests/bench/hprof_bench.sh [--mb 200]
#
# --mb is the approximate live heap to dump (the file comes out about 1.3x
# that). The dump is reused when present. BUILD_DIR selects the build tree
# (default: build); ORACLE the oracle binary. Needs a JDK (javac, java, jcmd).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR="${BUILD_DIR:-build}"
BENCH_DIR="${BENCH_DIR:-/tmp}"
ORACLE="${ORACLE:-/work/shared/oracle/trace_processor_shell}"
MB=200
while [ $# -gt 0 ]; do
  case "$1" in
    --mb) MB="$2"; shift ;;
    *) echo "usage: $0 [--mb 200]" >&2; exit 2 ;;
  esac
  shift
done
for tool in javac java jcmd; do
  command -v "$tool" >/dev/null || { echo "hprof_bench: no $tool (needs a JDK)" >&2; exit 0; }
done
CLI="$BUILD_DIR/bin/fathom-cli"
[ -x "$CLI" ] || cmake --build "$BUILD_DIR" --target fathom-cli

DUMP="$BENCH_DIR/fathom_bench_${MB}mb.hprof"
if [ ! -s "$DUMP" ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  cat >"$work/Fill.java" <<'JAVA'
import java.util.*;
public class Fill {
  static final class Item { Item next; String name; int[] small; long v; Item(Item n, long v) { next = n; this.v = v; name = "i" + (v % 100000); small = new int[(int) (v % 4)]; } }
  public static void main(String[] a) throws Exception {
    long target = Long.parseLong(a[0]) << 20;
    List<Item> heads = new ArrayList<>();
    Map<Long, Item> index = new HashMap<>();
    Item head = null;
    for (long i = 0; Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory() < target; i++) {
      head = new Item(head, i);
      if (i % 1000 == 0) { heads.add(head); head = null; }
      if (i % 7 == 0) index.put(i, head);
    }
    System.out.println("READY " + heads.size());
    System.out.flush();
    Thread.sleep(600_000);
  }
}
JAVA
  javac -d "$work" "$work/Fill.java"
  java -Xmx$((MB * 3))m -cp "$work" Fill "$MB" >"$work/out" 2>&1 &
  pid=$!
  for _ in $(seq 600); do grep -q READY "$work/out" 2>/dev/null && break; sleep 0.5; done
  jcmd "$pid" GC.heap_dump "$DUMP" >/dev/null
  kill "$pid"
fi

echo "select count(*) from heap_graph_object;" >"$BENCH_DIR/fathom_bench_hprof.sql"
measure() {  # name command...: prints name,seconds,rss_kb,rows
  local name="$1"; shift
  local t0 t1 out
  t0=$(date +%s.%N)
  out=$(/usr/bin/time -f 'RSS %M' "$@" 2>"$BENCH_DIR/fathom_bench_hprof.err" | tr -d '"' | grep -E '^[0-9]+$' | tail -1)
  t1=$(date +%s.%N)
  echo "$name,$(echo "$t1 - $t0" | bc),$(grep -o 'RSS [0-9]*' "$BENCH_DIR/fathom_bench_hprof.err" | cut -d' ' -f2),$out"
}
size_mb=$(echo "scale=1; $(stat -c %s "$DUMP") / 1048576" | bc)
rows=("$(measure fathom "$CLI" query "$DUMP" "select count(*) from heap_graph_object" --format csv)")
# ORACLE= skips the oracle (it needs ~30x Fathom's memory on large dumps).
[ -n "$ORACLE" ] && [ -x "$ORACLE" ] && rows+=("$(measure oracle "$ORACLE" query -f "$BENCH_DIR/fathom_bench_hprof.sql" "$DUMP")")
printf '%-8s %-34s %8s %8s %8s %9s %12s\n' loader dump MB wall_s MB/s rss_MB objects
for r in "${rows[@]}"; do
  IFS=, read -r name secs rss objs <<<"$r"
  printf '%-8s %-34s %8s %8.2f %8.1f %9d %12s\n' "$name" "$(basename "$DUMP")" "$size_mb" "$secs" \
    "$(echo "$size_mb / $secs" | bc -l)" "$((rss / 1024))" "$objs"
done
