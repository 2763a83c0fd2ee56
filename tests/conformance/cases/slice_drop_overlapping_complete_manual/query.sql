SELECT ts, dur, name, depth FROM slice UNION ALL SELECT -1, value, name, NULL FROM stats WHERE value != 0 AND name NOT LIKE '%_duration_ns' AND name != 'clock_sync_cache_miss' ORDER BY 1, 3;
