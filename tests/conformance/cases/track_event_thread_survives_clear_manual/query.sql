SELECT s.ts, s.name, t.type, (SELECT tid FROM thread WHERE utid = tt.utid) AS tid FROM slice s JOIN track t ON s.track_id = t.id LEFT JOIN thread_track tt ON tt.id = t.id ORDER BY s.ts;
