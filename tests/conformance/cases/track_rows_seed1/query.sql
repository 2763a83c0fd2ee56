select id, name, type, dimension_arg_set_id, parent_id, source_arg_set_id, machine_id from track order by name, id, id, name, type, dimension_arg_set_id, parent_id, source_arg_set_id, machine_id;
