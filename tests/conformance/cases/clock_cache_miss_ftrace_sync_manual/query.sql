SELECT name, idx, severity, source, value FROM stats WHERE name = 'clock_sync_cache_miss';
