SELECT c.ts, t.name, c.value, p.pid FROM counter c JOIN process_counter_track t ON c.track_id = t.id LEFT JOIN process p USING (upid) WHERE t.name LIKE 'mem.%' ORDER BY c.ts, t.name;
