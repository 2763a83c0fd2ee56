SELECT 'slice' AS kind, s.id, s.ts, s.name, s.arg_set_id, s.track_id FROM slice s UNION ALL SELECT 'event', f.id, f.ts, f.name, f.arg_set_id, f.utid FROM ftrace_event f ORDER BY kind, id;
