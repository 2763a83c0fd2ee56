SELECT c.cpu, a.key, a.int_value FROM cpu c JOIN args a USING (arg_set_id) ORDER BY c.cpu, a.key;
