SELECT * FROM process, thread, stats, sched, slice, track LIMIT 0;
