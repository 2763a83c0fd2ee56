SELECT id, name, type, dimension_arg_set_id, track_group_id FROM track ORDER BY id;
