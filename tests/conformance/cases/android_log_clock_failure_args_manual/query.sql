SELECT l.name, l.ts, l.severity, a.arg_set_id, a.key, a.display_value, a.value_type FROM _trace_import_logs l JOIN args a USING (arg_set_id) ORDER BY a.id;
