SELECT s.id, s.name, s.track_id, s.arg_set_id FROM slice s ORDER BY s.arg_set_id, s.id;
