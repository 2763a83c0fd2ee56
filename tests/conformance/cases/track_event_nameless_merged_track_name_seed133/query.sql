SELECT id, name, type FROM track WHERE type LIKE '%track_event%' ORDER BY id;
