SELECT name, idx, value FROM stats WHERE name LIKE 'heapprofd%' AND (idx IS NOT NULL OR value != 0) ORDER BY name, idx;
