INCLUDE PERFETTO MODULE sched.thread_level_parallelism;
SELECT runnable_thread_count, count(*) AS changes, min(ts) AS first_ts
FROM sched_runnable_thread_count
GROUP BY runnable_thread_count
ORDER BY runnable_thread_count;
