SELECT ts, dur, name, depth, NULL AS value FROM slice UNION ALL SELECT NULL, NULL, name, NULL, value FROM stats WHERE name = 'misplaced_end_event' ORDER BY 1, 3;
