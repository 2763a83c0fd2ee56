select c.id, c.ts, t.name, c.value from counter c join track t on c.track_id = t.id order by c.id
