SELECT t.name, t.type, c.ts, c.value FROM counter c JOIN track t ON c.track_id = t.id ORDER BY t.name, c.ts;
