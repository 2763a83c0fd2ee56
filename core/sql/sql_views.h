// The views upstream Perfetto users rely on: table aliases (sched, with
// upstream's ts_end = ts + dur that linux.cpu.utilization reads; raw,
// track and slice with upstream's columns (kViewedTables),
// slices), the kind-specific track tables, `counters`, `instant` and the
// profiler sample views over the __intrinsic_profiler_* tables (stack samples
// are the samples with a callstack, perf's included).
#pragma once

namespace fathom {

// Storage tables whose SQL name is taken by a view with upstream's columns;
// the table itself is __intrinsic_<name>. Upstream's `track` has no owner
// columns (they would make `upid`/`utid` ambiguous in the library's joins),
// and its `slice` has the instruction-count columns the library reads.
inline constexpr const char* kViewedTables[] = {"track", "slice", "android_logs"};

inline constexpr const char* kSqlViews = R"sql(
CREATE VIEW slice AS
  SELECT id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id, thread_ts,
         thread_dur, NULL AS thread_instruction_count, NULL AS thread_instruction_delta, cat,
         slice_id
  FROM __intrinsic_slice;
CREATE VIEW sched AS SELECT *, ts + dur AS ts_end FROM sched_slice;
CREATE VIEW raw AS SELECT * FROM ftrace_event;
CREATE VIEW cpu AS SELECT * FROM __intrinsic_cpu WHERE cpu IS NOT NULL;
CREATE VIEW slices AS SELECT * FROM slice;
CREATE VIEW logs AS
  SELECT id, ts, utid, prio, log_source, tag, msg, arg_set_id FROM __intrinsic_android_logs;
CREATE VIEW android_logs AS
  SELECT id, ts, utid, prio, tag, msg, arg_set_id FROM __intrinsic_android_logs
  WHERE log_source = 'android';
CREATE VIEW track AS
  SELECT id, name, type, dimension_arg_set_id, parent_id, source_arg_set_id, machine_id,
         track_group_id
  FROM __intrinsic_track;
CREATE VIEW thread_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, utid
  FROM __intrinsic_track WHERE event_type = 'slice' AND utid IS NOT NULL;
CREATE VIEW process_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, upid
  FROM __intrinsic_track WHERE event_type = 'slice' AND upid IS NOT NULL;
CREATE VIEW state_track AS
  SELECT id, name, parent_id, type, dimension_arg_set_id, source_arg_set_id, machine_id
  FROM __intrinsic_track WHERE event_type = 'state';
CREATE VIEW process_state_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, upid
  FROM __intrinsic_track WHERE event_type = 'state' AND upid IS NOT NULL;
CREATE VIEW thread_state_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, utid
  FROM __intrinsic_track WHERE event_type = 'state' AND utid IS NOT NULL;
CREATE VIEW cpu_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, cpu
  FROM __intrinsic_track WHERE event_type = 'slice' AND cpu IS NOT NULL;
CREATE VIEW counter_track AS
  SELECT id, name, parent_id, type, dimension_arg_set_id, source_arg_set_id, machine_id,
         counter_unit AS unit, extract_arg(source_arg_set_id, 'description') AS description
  FROM __intrinsic_track WHERE event_type = 'counter';
CREATE VIEW gpu_counter_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, counter_unit AS unit,
         extract_arg(source_arg_set_id, 'description') AS description,
         extract_arg(dimension_arg_set_id, 'ugpu') AS ugpu,
         extract_arg(dimension_arg_set_id, 'gpu') AS gpu_id
  FROM __intrinsic_track
  WHERE event_type = 'counter' AND extract_arg(dimension_arg_set_id, 'ugpu') IS NOT NULL;
CREATE VIEW cpu_counter_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, counter_unit AS unit,
         extract_arg(source_arg_set_id, 'description') AS description, cpu
  FROM __intrinsic_track WHERE event_type = 'counter' AND cpu IS NOT NULL;
CREATE VIEW process_counter_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, counter_unit AS unit,
         extract_arg(source_arg_set_id, 'description') AS description, upid
  FROM __intrinsic_track WHERE event_type = 'counter' AND upid IS NOT NULL;
CREATE VIEW thread_counter_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, counter_unit AS unit,
         extract_arg(source_arg_set_id, 'description') AS description, utid
  FROM __intrinsic_track WHERE event_type = 'counter' AND utid IS NOT NULL;
CREATE VIEW counters AS
  SELECT counter.*, counter_track.name AS name, counter_track.unit AS unit
  FROM counter JOIN counter_track ON counter.track_id = counter_track.id
  ORDER BY ts;
CREATE VIEW perf_session AS
  SELECT id, id AS perf_session_id, cmdline
  FROM __intrinsic_profiler_session WHERE source = 'linux.perf';
CREATE VIEW perf_counter_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, counter_unit AS unit,
         NULL AS description, extract_arg(dimension_arg_set_id, 'perf_session_id') AS perf_session_id,
         cpu, extract_arg(source_arg_set_id, 'is_timebase') AS is_timebase
  FROM __intrinsic_track WHERE type = 'perf_cpu_counter';
CREATE VIEW stack_sample AS
  SELECT id, ts, source, task_context_id, execution_context_id, callsite_id, session_id
  FROM __intrinsic_profiler_sample WHERE callsite_id IS NOT NULL;
CREATE VIEW stack_sample_counter AS
  SELECT c.id AS id, s.id AS stack_sample_id, c.track_id AS track_id, c.value AS value
  FROM __intrinsic_profiler_counter_set cs
  JOIN __intrinsic_profiler_sample s ON s.counter_set_id = cs.counter_set_id
  JOIN counter c ON c.id = cs.counter_id
  WHERE s.callsite_id IS NOT NULL;
CREATE VIEW stack_sample_counter_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, counter_unit AS unit,
         NULL AS description,
         coalesce(extract_arg(dimension_arg_set_id, 'session_id'),
                  extract_arg(dimension_arg_set_id, 'perf_session_id')) AS session_id,
         cpu, extract_arg(source_arg_set_id, 'is_timebase') AS is_timebase
  FROM __intrinsic_track WHERE id IN (SELECT track_id FROM stack_sample_counter);
CREATE VIEW stack_sample_session AS
  SELECT id, source, timebase_unit, cmdline FROM __intrinsic_profiler_session
  WHERE id IN (SELECT session_id FROM stack_sample);
CREATE VIEW stack_sample_task_context AS
  SELECT id, upid, utid, async_context_id FROM __intrinsic_profiler_task_context
  WHERE id IN (SELECT task_context_id FROM stack_sample);
CREATE VIEW stack_sample_execution_context AS
  SELECT id, ucpu, cpu_mode FROM __intrinsic_profiler_execution_context
  WHERE id IN (SELECT execution_context_id FROM stack_sample);
CREATE VIEW stack_sample_async_context AS
  SELECT id, name, kind, parent_id FROM __intrinsic_profiler_async_context;
CREATE VIEW expected_frame_timeline_slice AS
  SELECT s.id, s.ts, s.dur, s.track_id, s.category, s.name, s.depth, s.parent_id, s.arg_set_id,
         f.display_frame_token, f.surface_frame_token, f.upid, f.layer_name
  FROM __intrinsic_frame_timeline_slice f JOIN slice s ON s.id = f.slice_id
  WHERE f.is_expected = 1;
CREATE VIEW actual_frame_timeline_slice AS
  SELECT s.id, s.ts, s.dur, s.track_id, s.category, s.name, s.depth, s.parent_id, s.arg_set_id,
         f.display_frame_token, f.surface_frame_token, f.upid, f.layer_name, f.present_type,
         f.on_time_finish, f.gpu_composition, f.jank_type, f.jank_severity_type,
         f.prediction_type, f.jank_tag, f.jank_tag_experimental, f.jank_score,
         NULL AS latched_unsignaled_count, NULL AS addressable_unsignaled_latch_count,
         NULL AS latched_fence_state
  FROM __intrinsic_frame_timeline_slice f JOIN slice s ON s.id = f.slice_id
  WHERE f.is_expected = 0;
CREATE VIEW instant AS
  SELECT slice.ts AS ts, slice.name AS name, slice.track_id AS track_id,
         slice.arg_set_id AS arg_set_id
  FROM slice WHERE slice.dur = 0;
)sql";

}  // namespace fathom
