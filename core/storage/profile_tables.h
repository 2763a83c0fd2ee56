// Tables of the callstack profilers (heapprofd, perf, StackSample) and of ART
// Java heap graphs, with upstream Perfetto's table and column names.
#pragma once

#include <vector>

#include "core/storage/column.h"
#include "core/storage/profiler_sample_tables.h"

namespace fathom {

// ---- callstacks shared by every profiler ----------------------------------

struct StackProfileMappingTable : Table {
  StackProfileMappingTable() : Table("stack_profile_mapping") {}
  IdColumn id{this, "id"};
  StringColumn build_id{this, "build_id"};
  Int64Column exact_offset{this, "exact_offset"};
  Int64Column start_offset{this, "start_offset"};
  Int64Column start{this, "start"};
  Int64Column end{this, "end"};
  Int64Column load_bias{this, "load_bias"};
  StringColumn name{this, "name"};

  uint32_t Insert(StringId bid, int64_t exact, int64_t start_off, int64_t s, int64_t e,
                  int64_t bias, StringId n) {
    build_id.Append(bid);
    exact_offset.Append(exact);
    start_offset.Append(start_off);
    start.Append(s);
    end.Append(e);
    load_bias.Append(bias);
    name.Append(n);
    return CommitRow();
  }
};

struct StackProfileFrameTable : Table {
  StackProfileFrameTable() : Table("stack_profile_frame") {}
  IdColumn id{this, "id"};
  StringColumn name{this, "name"};
  UInt32Column mapping{this, "mapping"};
  Int64Column rel_pc{this, "rel_pc"};
  UInt32Column symbol_set_id{this, "symbol_set_id", kNullable};
  StringColumn deobfuscated_name{this, "deobfuscated_name"};
  StringColumn type{this, "type"};

  uint32_t Insert(StringId n, uint32_t map, int64_t pc, StringId ty) {
    name.Append(n);
    mapping.Append(map);
    rel_pc.Append(pc);
    symbol_set_id.AppendNull();
    deobfuscated_name.Append(kNullStringId);
    type.Append(ty);
    return CommitRow();
  }
};

struct StackProfileCallsiteTable : Table {
  StackProfileCallsiteTable() : Table("stack_profile_callsite") {}
  IdColumn id{this, "id"};
  UInt32Column depth{this, "depth"};
  UInt32Column parent_id{this, "parent_id", kNullable};
  UInt32Column frame_id{this, "frame_id"};

  uint32_t Insert(uint32_t d, std::optional<uint32_t> parent, uint32_t frame) {
    depth.Append(d);
    parent_id.Append(parent);
    frame_id.Append(frame);
    return CommitRow();
  }
};

// Rows with the same symbol_set_id describe one frame (inlined functions).
struct StackProfileSymbolTable : Table {
  StackProfileSymbolTable() : Table("stack_profile_symbol") {}
  IdColumn id{this, "id"};
  UInt32Column symbol_set_id{this, "symbol_set_id"};
  StringColumn name{this, "name"};
  StringColumn source_file{this, "source_file"};
  UInt32Column line_number{this, "line_number", kNullable};
  Int64Column inlined{this, "inlined", kNullable};

  uint32_t Insert(uint32_t set, StringId n, StringId file, std::optional<uint32_t> line) {
    symbol_set_id.Append(set);
    name.Append(n);
    source_file.Append(file);
    line_number.Append(line);
    inlined.AppendNull();
    return CommitRow();
  }
};

// ---- heapprofd --------------------------------------------------------------

// Per dump and callsite, the allocations (positive count/size) and frees
// (negative) since the previous dump of the same process and heap.
struct HeapProfileAllocationTable : Table {
  HeapProfileAllocationTable() : Table("heap_profile_allocation") {}
  IdColumn id{this, "id"};
  Int64Column ts{this, "ts"};
  UInt32Column upid{this, "upid"};
  StringColumn heap_name{this, "heap_name"};
  UInt32Column callsite_id{this, "callsite_id"};
  Int64Column count{this, "count"};
  Int64Column size{this, "size"};

  uint32_t Insert(int64_t t, uint32_t u, StringId heap, uint32_t callsite, int64_t c, int64_t s) {
    ts.Append(t);
    upid.Append(u);
    heap_name.Append(heap);
    callsite_id.Append(callsite);
    count.Append(c);
    size.Append(s);
    return CommitRow();
  }
};

// One row per heapprofd process dump (ProfilePacket.process_dumps): the
// window its samples cover. ts_end is the dump time; ts the window start
// (start_timestamp, or the dump time when the dump has none).
struct HeapProfileTable : Table {
  HeapProfileTable() : Table("heap_profile") {}
  IdColumn id{this, "id"};
  Int64Column ts{this, "ts"};
  Int64Column ts_end{this, "ts_end"};
  Int64Column dur{this, "dur"};
  UInt32Column upid{this, "upid"};
  StringColumn heap_name{this, "heap_name"};

  uint32_t Insert(int64_t start, int64_t end, uint32_t u, StringId heap) {
    ts.Append(start);
    ts_end.Append(end);
    dur.Append(end - start);
    upid.Append(u);
    heap_name.Append(heap);
    return CommitRow();
  }
};

// /proc/pid/smaps entries of a SmapsPacket, one row per entry. Fields the
// entry leaves out read 0 (numbers) or NULL (strings).
struct ProfilerSmapsTable : Table {
  ProfilerSmapsTable() : Table("profiler_smaps") {}
  IdColumn id{this, "id"};
  UInt32Column upid{this, "upid"};
  Int64Column ts{this, "ts"};
  StringColumn path{this, "path"};
  StringColumn path_trimmed{this, "path_trimmed"};  // path without " (deleted)"
  Int64Column aggregate_count{this, "aggregate_count"};
  Int64Column is_deleted{this, "is_deleted"};
  Int64Column size_kb{this, "size_kb"};
  Int64Column private_dirty_kb{this, "private_dirty_kb"};
  Int64Column swap_kb{this, "swap_kb"};
  StringColumn file_name{this, "file_name"};
  Int64Column start_address{this, "start_address"};
  Int64Column module_timestamp{this, "module_timestamp"};
  StringColumn module_debugid{this, "module_debugid"};
  StringColumn module_debug_path{this, "module_debug_path"};
  Int64Column protection_flags{this, "protection_flags"};
  Int64Column private_clean_resident_kb{this, "private_clean_resident_kb"};
  Int64Column shared_dirty_resident_kb{this, "shared_dirty_resident_kb"};
  Int64Column shared_clean_resident_kb{this, "shared_clean_resident_kb"};
  Int64Column locked_kb{this, "locked_kb"};
  Int64Column proportional_resident_kb{this, "proportional_resident_kb"};
  Int64Column rss_kb{this, "rss_kb"};
  Int64Column anonymous_kb{this, "anonymous_kb"};
  Int64Column pss_dirty_kb{this, "pss_dirty_kb"};
  Int64Column swap_pss_kb{this, "swap_pss_kb"};

  // The values of one row, in column order; the importer fills it.
  struct Row {
    uint32_t upid = 0;
    int64_t ts = 0;
    StringId path = kNullStringId, path_trimmed = kNullStringId;
    int64_t is_deleted = 0, size_kb = 0, private_dirty_kb = 0, swap_kb = 0;
    StringId file_name = kNullStringId;
    int64_t start_address = 0, module_timestamp = 0;
    StringId module_debugid = kNullStringId, module_debug_path = kNullStringId;
    int64_t protection_flags = 0, private_clean_resident_kb = 0, shared_dirty_resident_kb = 0,
            shared_clean_resident_kb = 0, locked_kb = 0, proportional_resident_kb = 0;
  };
  uint32_t Insert(const Row& r) {
    upid.Append(r.upid);
    ts.Append(r.ts);
    path.Append(r.path);
    path_trimmed.Append(r.path_trimmed);
    aggregate_count.Append(int64_t{1});  // one smaps entry per row
    is_deleted.Append(r.is_deleted);
    size_kb.Append(r.size_kb);
    private_dirty_kb.Append(r.private_dirty_kb);
    swap_kb.Append(r.swap_kb);
    file_name.Append(r.file_name);
    start_address.Append(r.start_address);
    module_timestamp.Append(r.module_timestamp);
    module_debugid.Append(r.module_debugid);
    module_debug_path.Append(r.module_debug_path);
    protection_flags.Append(r.protection_flags);
    private_clean_resident_kb.Append(r.private_clean_resident_kb);
    shared_dirty_resident_kb.Append(r.shared_dirty_resident_kb);
    shared_clean_resident_kb.Append(r.shared_clean_resident_kb);
    locked_kb.Append(r.locked_kb);
    proportional_resident_kb.Append(r.proportional_resident_kb);
    // Not carried by this schema's SmapsEntry; upstream reads 0 without them.
    for (Int64Column* c : {&rss_kb, &anonymous_kb, &pss_dirty_kb, &swap_pss_kb})
      c->Append(int64_t{0});
    return CommitRow();
  }
};

// ---- CPU samples ------------------------------------------------------------

struct PerfSampleTable : Table {
  PerfSampleTable() : Table("perf_sample") {}
  IdColumn id{this, "id"};
  Int64Column ts{this, "ts"};
  UInt32Column utid{this, "utid"};
  UInt32Column cpu{this, "cpu", kNullable};
  StringColumn cpu_mode{this, "cpu_mode"};
  UInt32Column callsite_id{this, "callsite_id", kNullable};
  StringColumn unwind_error{this, "unwind_error"};
  UInt32Column perf_session_id{this, "perf_session_id", kNullable};

  uint32_t Insert(int64_t t, uint32_t u, std::optional<uint32_t> c, StringId mode,
                  std::optional<uint32_t> callsite, StringId unwind,
                  std::optional<uint32_t> session = std::nullopt) {
    ts.Append(t);
    utid.Append(u);
    cpu.Append(c);
    cpu_mode.Append(mode);
    callsite_id.Append(callsite);
    unwind_error.Append(unwind);
    perf_session_id.Append(session);
    return CommitRow();
  }
};

// Chrome's in-process sampler (StreamingProfilePacket): one row per sample,
// upstream's cpu_profile_stack_sample.
struct CpuProfileStackSampleTable : Table {
  CpuProfileStackSampleTable() : Table("cpu_profile_stack_sample") {}
  IdColumn id{this, "id"};
  Int64Column ts{this, "ts"};
  UInt32Column callsite_id{this, "callsite_id"};
  UInt32Column utid{this, "utid"};
  Int32Column process_priority{this, "process_priority"};

  uint32_t Insert(int64_t t, uint32_t callsite, uint32_t u, int32_t prio) {
    ts.Append(t);
    callsite_id.Append(callsite);
    utid.Append(u);
    process_priority.Append(prio);
    return CommitRow();
  }
};

// ---- aggregate profiles (pprof) ---------------------------------------------

// One row per (profile file, sample type): upstream's
// __intrinsic_aggregate_profile. Samples carry no time and no process.
struct AggregateProfileTable : Table {
  AggregateProfileTable() : Table("__intrinsic_aggregate_profile") {}
  IdColumn id{this, "id"};
  StringColumn scope{this, "scope"};
  StringColumn name{this, "name"};
  StringColumn sample_type_type{this, "sample_type_type"};
  StringColumn sample_type_unit{this, "sample_type_unit"};
  // 1 for the file's preferred sample type (default_sample_type, else the
  // last one, as pprof itself picks).
  Int32Column is_default{this, "is_default", kHidden};

  uint32_t Insert(StringId sc, StringId n, StringId type, StringId unit, bool def) {
    scope.Append(sc);
    name.Append(n);
    sample_type_type.Append(type);
    sample_type_unit.Append(unit);
    is_default.Append(def ? 1 : 0);
    return CommitRow();
  }
};

// One row per (pprof Sample, sample type) with a non-zero value.
struct AggregateSampleTable : Table {
  AggregateSampleTable() : Table("__intrinsic_aggregate_sample") {}
  IdColumn id{this, "id"};
  UInt32Column aggregate_profile_id{this, "aggregate_profile_id"};
  UInt32Column callsite_id{this, "callsite_id", kNullable};
  DoubleColumn value{this, "value"};

  uint32_t Insert(uint32_t profile, std::optional<uint32_t> callsite, double v) {
    aggregate_profile_id.Append(profile);
    callsite_id.Append(callsite);
    value.Append(v);
    return CommitRow();
  }
};

// ---- track event callstacks -------------------------------------------------

// One row per TrackEvent that carried a callstack (inline or interned): a
// begin or instant fills callsite_id, an end event end_callsite_id. weight is
// the event's callstack_weight.
struct TrackEventCallstacksTable : Table {
  TrackEventCallstacksTable() : Table("__intrinsic_track_event_callstacks") {}
  IdColumn id{this, "id"};
  UInt32Column slice_id{this, "slice_id"};
  UInt32Column track_id{this, "track_id"};
  UInt32Column callsite_id{this, "callsite_id", kNullable};
  UInt32Column end_callsite_id{this, "end_callsite_id", kNullable};
  DoubleColumn weight{this, "weight", kNullable};

  uint32_t Insert(uint32_t slice, uint32_t track, std::optional<uint32_t> callsite,
                  std::optional<uint32_t> end_callsite, std::optional<double> w) {
    slice_id.Append(slice);
    track_id.Append(track);
    callsite_id.Append(callsite);
    end_callsite_id.Append(end_callsite);
    weight.Append(w);
    return CommitRow();
  }
};

// ---- ART Java heap graphs ---------------------------------------------------

// One row per heap dump (process, timestamp).
struct HeapGraphTable : Table {
  HeapGraphTable() : Table("heap_graph") {}
  IdColumn id{this, "id"};
  Int64Column ts{this, "ts"};
  UInt32Column upid{this, "upid"};
  StringColumn dump_reason{this, "dump_reason"};
  Int64Column heap_size{this, "heap_size", kNullable};
  Int64Column truncated{this, "truncated"};

  uint32_t Insert(int64_t t, uint32_t u, std::optional<int64_t> size) {
    ts.Append(t);
    upid.Append(u);
    dump_reason.Append(kNullStringId);
    heap_size.Append(size);
    truncated.Append(0);
    return CommitRow();
  }
};

struct HeapGraphClassTable : Table {
  HeapGraphClassTable() : Table("heap_graph_class") {}
  IdColumn id{this, "id"};
  StringColumn name{this, "name"};
  StringColumn deobfuscated_name{this, "deobfuscated_name"};
  StringColumn location{this, "location"};
  // Upstream (v58) never fills superclass_id for ART heap graphs; the
  // superclass the dump names is kept in resolved_superclass_id, which the
  // heap explorer walks.
  UInt32Column superclass_id{this, "superclass_id", kNullable};
  UInt32Column classloader_id{this, "classloader_id", kNullable};
  StringColumn kind{this, "kind"};
  UInt32Column resolved_superclass_id{this, "resolved_superclass_id", kNullable | kHidden};

  uint32_t Insert(StringId n, StringId loc, StringId k) {
    name.Append(n);
    deobfuscated_name.Append(kNullStringId);
    location.Append(loc);
    superclass_id.AppendNull();
    classloader_id.AppendNull();
    kind.Append(k);
    resolved_superclass_id.AppendNull();
    return CommitRow();
  }
};

// All rows with the same (upid, graph_sample_ts) are one dump.
struct HeapGraphObjectTable : Table {
  HeapGraphObjectTable() : Table("heap_graph_object") {}
  IdColumn id{this, "id"};
  UInt32Column upid{this, "upid"};
  Int64Column graph_sample_ts{this, "graph_sample_ts"};
  Int64Column self_size{this, "self_size"};
  Int64Column native_size{this, "native_size"};
  UInt32Column reference_set_id{this, "reference_set_id", kNullable};
  Int64Column reachable{this, "reachable"};
  StringColumn heap_type{this, "heap_type"};
  UInt32Column type_id{this, "type_id"};
  StringColumn root_type{this, "root_type"};
  // Shortest distance (in references) from a GC root; -1 when unreachable.
  // Drives the shortest-path-tree flamegraph.
  Int32Column root_distance{this, "root_distance"};
  // Upstream's link to primitive field data (heap_graph_object_data), which
  // ART heap graph packets do not carry: always NULL here.
  UInt32Column object_data_id{this, "object_data_id", kNullable};

  uint32_t Insert(uint32_t u, int64_t ts) {
    upid.Append(u);
    graph_sample_ts.Append(ts);
    self_size.Append(0);
    native_size.Append(0);
    reference_set_id.AppendNull();
    reachable.Append(0);
    heap_type.Append(kNullStringId);
    type_id.Append(0);
    root_type.Append(kNullStringId);
    root_distance.Append(-1);
    object_data_id.AppendNull();
    return CommitRow();
  }
};

// The references of one object are consecutive rows sharing reference_set_id
// (= the row id of the first of them). Null references keep a NULL owned_id.
struct HeapGraphReferenceTable : Table {
  HeapGraphReferenceTable() : Table("heap_graph_reference") {}
  IdColumn id{this, "id"};
  UInt32Column reference_set_id{this, "reference_set_id", kSorted};
  UInt32Column owner_id{this, "owner_id"};
  UInt32Column owned_id{this, "owned_id", kNullable};
  StringColumn field_name{this, "field_name"};
  StringColumn field_type_name{this, "field_type_name"};
  StringColumn deobfuscated_field_name{this, "deobfuscated_field_name"};

  uint32_t Insert(uint32_t set, uint32_t owner, std::optional<uint32_t> owned, StringId field,
                  StringId field_type) {
    reference_set_id.Append(set);
    owner_id.Append(owner);
    owned_id.Append(owned);
    field_name.Append(field);
    field_type_name.Append(field_type);
    deobfuscated_field_name.Append(kNullStringId);
    return CommitRow();
  }
};

struct HeapGraphThreadCallsiteTable : Table {
  HeapGraphThreadCallsiteTable() : Table("heap_graph_thread_callsite") {}
  IdColumn id{this, "id"};
  UInt32Column heap_graph_id{this, "heap_graph_id"};
  UInt32Column utid{this, "utid"};
  UInt32Column callsite_id{this, "callsite_id", kNullable};

  uint32_t Insert(uint32_t graph, uint32_t u, std::optional<uint32_t> callsite) {
    heap_graph_id.Append(graph);
    utid.Append(u);
    callsite_id.Append(callsite);
    return CommitRow();
  }
};

struct HeapGraphJavaOomeDetailsTable : Table {
  HeapGraphJavaOomeDetailsTable() : Table("android_heap_graph_java_oome_details") {}
  IdColumn id{this, "id"};
  UInt32Column heap_graph_id{this, "heap_graph_id"};
  Int64Column allocation_size_bytes{this, "allocation_size_bytes"};
  Int64Column total_bytes_free{this, "total_bytes_free"};
  Int64Column free_bytes_until_oom{this, "free_bytes_until_oom"};
  StringColumn error_msg{this, "error_msg"};

  uint32_t Insert(uint32_t graph, int64_t alloc, int64_t total_free, int64_t until_oom,
                  StringId msg) {
    heap_graph_id.Append(graph);
    allocation_size_bytes.Append(alloc);
    total_bytes_free.Append(total_free);
    free_bytes_until_oom.Append(until_oom);
    error_msg.Append(msg);
    return CommitRow();
  }
};

// Every profiler table, held by TraceStorage as one member.
struct ProfileTables {
  StackProfileMappingTable stack_profile_mapping;
  StackProfileFrameTable stack_profile_frame;
  StackProfileCallsiteTable stack_profile_callsite;
  StackProfileSymbolTable stack_profile_symbol;
  HeapProfileAllocationTable heap_profile_allocation;
  HeapProfileTable heap_profile;
  ProfilerSmapsTable profiler_smaps;
  PerfSampleTable perf_sample;
  HeapGraphTable heap_graph;
  HeapGraphClassTable heap_graph_class;
  HeapGraphObjectTable heap_graph_object;
  HeapGraphReferenceTable heap_graph_reference;
  HeapGraphThreadCallsiteTable heap_graph_thread_callsite;
  HeapGraphJavaOomeDetailsTable heap_graph_java_oome_details;
  CpuProfileStackSampleTable cpu_profile_stack_sample;
  AggregateProfileTable aggregate_profile;
  AggregateSampleTable aggregate_sample;
  TrackEventCallstacksTable track_event_callstacks;
  ProfilerSessionTable profiler_session;
  ProfilerAsyncContextTable profiler_async_context;
  ProfilerTaskContextTable profiler_task_context;
  ProfilerExecutionContextTable profiler_execution_context;
  ProfilerSampleTable profiler_sample;
  ProfilerCounterSetTable profiler_counter_set;

  std::vector<Table*> All() {
    return {&stack_profile_mapping,
            &stack_profile_frame,
            &stack_profile_callsite,
            &stack_profile_symbol,
            &heap_profile_allocation,
            &heap_profile,
            &profiler_smaps,
            &perf_sample,
            &heap_graph,
            &heap_graph_class,
            &heap_graph_object,
            &heap_graph_reference,
            &heap_graph_thread_callsite,
            &heap_graph_java_oome_details,
            &cpu_profile_stack_sample,
            &aggregate_profile,
            &aggregate_sample,
            &track_event_callstacks,
            &profiler_session,
            &profiler_async_context,
            &profiler_task_context,
            &profiler_execution_context,
            &profiler_sample,
            &profiler_counter_set};
  }
};

}  // namespace fathom
