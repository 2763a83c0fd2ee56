SELECT t.name, t.type, s.ts, s.dur, s.value, extract_arg(s.arg_set_id, 'consumer_uid') AS uid FROM state s JOIN track t ON s.track_id = t.id ORDER BY t.id, s.ts;
