SELECT name, int_value, str_value FROM metadata
WHERE name IN ('trace_type', 'trace_time_clock_id')
ORDER BY name;
