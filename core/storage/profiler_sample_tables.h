// The generic profiler sample model shared by perf (PerfSample) and
// StackSample streams, with upstream Perfetto's __intrinsic_profiler_* names.
// A sample belongs to a session (one per profiler stream), may name a task
// (process/thread/async context) and an execution context (cpu, mode), and
// carries its counter values as a counter set: rows of the counter table
// listed in __intrinsic_profiler_counter_set under the id of the first one.
// The SQL views (perf_sample is separate, stack_sample*, perf_session,
// perf_counter_track) are built on these tables in sql_views.h.
#pragma once

#include <optional>

#include "core/storage/column.h"

namespace fathom {

// One row per profiler stream (a perf data source or StackSample sequence).
struct ProfilerSessionTable : Table {
  ProfilerSessionTable() : Table("__intrinsic_profiler_session") {}
  IdColumn id{this, "id"};
  StringColumn source{this, "source"};
  StringColumn timebase_unit{this, "timebase_unit"};
  StringColumn cmdline{this, "cmdline"};

  uint32_t Insert(StringId src, StringId unit) {
    source.Append(src);
    timebase_unit.Append(unit);
    cmdline.Append(kNullStringId);
    return CommitRow();
  }
};

// Async contexts (fibers, coroutines) a StackSample task can run in; parents
// are inserted before their children.
struct ProfilerAsyncContextTable : Table {
  ProfilerAsyncContextTable() : Table("__intrinsic_profiler_async_context") {}
  IdColumn id{this, "id"};
  StringColumn name{this, "name"};
  StringColumn kind{this, "kind"};
  UInt32Column parent_id{this, "parent_id", kNullable};

  uint32_t Insert(StringId n, StringId k, std::optional<uint32_t> parent) {
    name.Append(n);
    kind.Append(k);
    parent_id.Append(parent);
    return CommitRow();
  }
};

// Distinct (process, thread, async context) a sample ran for.
struct ProfilerTaskContextTable : Table {
  ProfilerTaskContextTable() : Table("__intrinsic_profiler_task_context") {}
  IdColumn id{this, "id"};
  UInt32Column upid{this, "upid", kNullable};
  UInt32Column utid{this, "utid", kNullable};
  UInt32Column async_context_id{this, "async_context_id", kNullable};

  uint32_t Insert(std::optional<uint32_t> p, std::optional<uint32_t> t,
                  std::optional<uint32_t> async) {
    upid.Append(p);
    utid.Append(t);
    async_context_id.Append(async);
    return CommitRow();
  }
};

// Distinct (cpu, cpu mode) a sample was taken on.
struct ProfilerExecutionContextTable : Table {
  ProfilerExecutionContextTable() : Table("__intrinsic_profiler_execution_context") {}
  IdColumn id{this, "id"};
  UInt32Column ucpu{this, "ucpu", kNullable};
  StringColumn cpu_mode{this, "cpu_mode"};

  uint32_t Insert(std::optional<uint32_t> cpu, StringId mode) {
    ucpu.Append(cpu);
    cpu_mode.Append(mode);
    return CommitRow();
  }
};

struct ProfilerSampleTable : Table {
  ProfilerSampleTable() : Table("__intrinsic_profiler_sample") {}
  IdColumn id{this, "id"};
  Int64Column ts{this, "ts"};
  StringColumn source{this, "source"};
  UInt32Column task_context_id{this, "task_context_id", kNullable};
  UInt32Column execution_context_id{this, "execution_context_id", kNullable};
  UInt32Column callsite_id{this, "callsite_id", kNullable};
  StringColumn unwind_error{this, "unwind_error"};
  UInt32Column session_id{this, "session_id", kNullable};
  UInt32Column counter_set_id{this, "counter_set_id", kNullable};

  struct Row {
    int64_t ts = 0;
    StringId source = kNullStringId;
    std::optional<uint32_t> task_context, execution_context, callsite;
    StringId unwind_error = kNullStringId;
    std::optional<uint32_t> session, counter_set;
  };
  uint32_t Insert(const Row& r) {
    ts.Append(r.ts);
    source.Append(r.source);
    task_context_id.Append(r.task_context);
    execution_context_id.Append(r.execution_context);
    callsite_id.Append(r.callsite);
    unwind_error.Append(r.unwind_error);
    session_id.Append(r.session);
    counter_set_id.Append(r.counter_set);
    return CommitRow();
  }
};

// counter_set_id is the id of the set's first counter row.
struct ProfilerCounterSetTable : Table {
  ProfilerCounterSetTable() : Table("__intrinsic_profiler_counter_set") {}
  IdColumn id{this, "id"};
  UInt32Column counter_set_id{this, "counter_set_id"};
  UInt32Column counter_id{this, "counter_id"};

  uint32_t Insert(uint32_t set, uint32_t counter) {
    counter_set_id.Append(set);
    counter_id.Append(counter);
    return CommitRow();
  }
};

}  // namespace fathom
