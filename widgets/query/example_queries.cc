#include "widgets/query/example_queries.h"

namespace fathom::gui {

// Upstream table and column names throughout, so these also run in
// Perfetto's trace_processor_shell.
const std::vector<ExampleQuery>& ExampleQueries() {
  static const std::vector<ExampleQuery> kExamples = {
      {"CPU time by process",
       "select p.name as process, count(*) as slices, sum(s.dur) as cpu_ns\n"
       "from sched s join thread t using(utid) left join process p using(upid)\n"
       "where t.tid != 0\ngroup by p.upid order by cpu_ns desc",
       "android_sched_binder_10s.perfetto-trace"},
      {"Busiest threads",
       "select t.tid, t.name as thread, p.name as process, sum(s.dur) as cpu_ns\n"
       "from sched s join thread t using(utid) left join process p using(upid)\n"
       "where t.tid != 0\ngroup by s.utid order by cpu_ns desc limit 50",
       "android_sched_binder_10s.perfetto-trace"},
      {"Thread states of the busiest thread",
       "select state, count(*) as n, sum(dur) as total_ns\nfrom thread_state\n"
       "where utid = (select utid from sched join thread using(utid) where tid != 0\n"
       "              group by utid order by sum(dur) desc limit 1)\n"
       "group by state order by total_ns desc",
       "android_sched_binder_10s.perfetto-trace"},
      {"CPU frequency per CPU",
       "select t.cpu, count(*) as samples, min(c.value) as min_khz, max(c.value) as max_khz\n"
       "from counter c join cpu_counter_track t on c.track_id = t.id\n"
       "where t.name = 'cpufreq' group by t.cpu order by t.cpu",
       "android_sched_binder_10s.perfetto-trace"},
      {"Longest slices",
       "select s.ts, s.dur, s.name, s.depth, s.track_id\nfrom slice s\n"
       "order by s.dur desc limit 100",
       "track_event_nested_tracks.perfetto-trace"},
      {"Slices by thread (atrace)",
       "select t.name as thread, count(*) as slices, sum(s.dur) as total_ns\n"
       "from slice s join thread_track tt on s.track_id = tt.id join thread t using(utid)\n"
       "group by tt.utid order by total_ns desc",
       "android_frametimeline_atrace_log.perfetto-trace"},
      {"Process memory counters",
       "select p.name as process, t.name as counter, count(*) as samples,\n"
       "       max(c.value) as max_value\n"
       "from counter c join process_counter_track t on c.track_id = t.id\n"
       "join process p using(upid)\ngroup by p.upid, t.name order by p.name, t.name",
       "process_stats_multiuser.pb"},
      {"Low-memory kills",
       "select i.ts, i.name, p.pid, p.name as process\n"
       "from instant i left join process_track pt on i.track_id = pt.id\n"
       "left join process p using(upid)\nwhere i.name = 'mem.lmk'",
       "lmk_lmkd_atrace.pb"},
      {"Native heap allocations by process",
       "select p.pid, p.name, a.heap_name, sum(a.count) as count, sum(a.size) as bytes\n"
       "from heap_profile_allocation a join process p using(upid)\n"
       "group by a.upid, a.heap_name",
       "heapprofd_continuous_legacy.pb"},
      {"CPU samples by thread",
       "select t.tid, t.name, count(*) as samples\n"
       "from perf_sample ps join thread t using(utid)\n"
       "group by ps.utid order by samples desc",
       "linux_compact_sched_perf_samples.pftrace"},
      {"Trace bounds and table sizes",
       "select (select min(ts) from sched) as first_sched, (select count(*) from sched) as sched,\n"
       "       (select count(*) from slice) as slices, (select count(*) from counter) as counters",
       "android_sched_binder_10s.perfetto-trace"},
      {"Import problems (stats)",
       "select name, idx, severity, source, value from stats where value > 0\n"
       "order by severity, name",
       "android_sched_binder_10s.perfetto-trace"},
      {"Log lines by priority and tag",
       "select prio, tag, count(*) as lines from android_logs\n"
       "group by prio, tag order by lines desc",
       ""},
  };
  return kExamples;
}

}  // namespace fathom::gui
