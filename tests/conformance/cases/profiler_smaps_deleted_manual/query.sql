SELECT * FROM profiler_smaps ORDER BY id;
