SELECT c.ts, c.value, a.key, a.int_value, a.value_type FROM counter c LEFT JOIN args a USING (arg_set_id) ORDER BY c.ts, c.value, a.key;
