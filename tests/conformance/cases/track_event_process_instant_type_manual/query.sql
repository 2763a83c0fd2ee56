SELECT s.ts, s.name, t.type FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts;
