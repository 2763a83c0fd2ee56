SELECT c.cpu, a.key, a.int_value FROM cpu c JOIN args a USING (arg_set_id) WHERE a.key != 'cpu_features.raw_bitmap' OR c.cpu > 60 ORDER BY c.cpu, a.key;
