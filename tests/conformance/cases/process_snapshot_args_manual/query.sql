SELECT p.pid, p.name, a.key, a.display_value, a.value_type FROM process p JOIN args a USING (arg_set_id) ORDER BY p.pid, a.id;
