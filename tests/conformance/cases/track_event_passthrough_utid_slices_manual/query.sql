SELECT s.ts, s.name, a.key, a.int_value, a.value_type FROM slice s LEFT JOIN args a USING (arg_set_id) ORDER BY s.ts, a.key;
