// The views upstream Perfetto users rely on: table aliases (sched, raw,
// slices), the kind-specific track tables, `counters` and `instant`.
#pragma once

namespace fathom {

inline constexpr const char* kSqlViews = R"sql(
CREATE VIEW sched AS SELECT * FROM sched_slice;
CREATE VIEW raw AS SELECT * FROM ftrace_event;
CREATE VIEW cpu AS SELECT * FROM __intrinsic_cpu WHERE cpu IS NOT NULL;
CREATE VIEW slices AS SELECT * FROM slice;
CREATE VIEW thread_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, utid
  FROM track WHERE event_type = 'slice' AND utid IS NOT NULL;
CREATE VIEW process_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, upid
  FROM track WHERE event_type = 'slice' AND upid IS NOT NULL;
CREATE VIEW state_track AS
  SELECT id, name, parent_id, type, dimension_arg_set_id, source_arg_set_id, machine_id
  FROM track WHERE event_type = 'state';
CREATE VIEW process_state_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, upid
  FROM track WHERE event_type = 'state' AND upid IS NOT NULL;
CREATE VIEW thread_state_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, utid
  FROM track WHERE event_type = 'state' AND utid IS NOT NULL;
CREATE VIEW cpu_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, cpu
  FROM track WHERE event_type = 'slice' AND cpu IS NOT NULL;
CREATE VIEW counter_track AS
  SELECT id, name, parent_id, type, dimension_arg_set_id, source_arg_set_id, machine_id,
         counter_unit AS unit, NULL AS description
  FROM track WHERE event_type = 'counter';
CREATE VIEW cpu_counter_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, counter_unit AS unit, cpu
  FROM track WHERE event_type = 'counter' AND cpu IS NOT NULL;
CREATE VIEW process_counter_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, counter_unit AS unit, upid
  FROM track WHERE event_type = 'counter' AND upid IS NOT NULL;
CREATE VIEW thread_counter_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, counter_unit AS unit, utid
  FROM track WHERE event_type = 'counter' AND utid IS NOT NULL;
CREATE VIEW counters AS
  SELECT counter.*, counter_track.name AS name, counter_track.unit AS unit
  FROM counter JOIN counter_track ON counter.track_id = counter_track.id
  ORDER BY ts;
CREATE VIEW instant AS
  SELECT slice.ts AS ts, slice.name AS name, slice.track_id AS track_id,
         slice.arg_set_id AS arg_set_id
  FROM slice WHERE slice.dur = 0;
)sql";

}  // namespace fathom
