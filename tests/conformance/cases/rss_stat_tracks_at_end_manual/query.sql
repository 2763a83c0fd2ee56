SELECT c.id, c.ts, c.track_id, t.name, t.type, c.value FROM counter c JOIN track t ON c.track_id = t.id ORDER BY c.id;
