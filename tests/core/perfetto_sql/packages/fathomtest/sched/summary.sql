-- Test module for Fathom: builds on fathomtest.base.
INCLUDE PERFETTO MODULE fathomtest.base;

CREATE PERFETTO VIEW ft_busiest_threads(utid LONG, tid LONG, name STRING, total_ns LONG) AS
SELECT t.utid, thread.tid, thread.name, t.total_ns
FROM ft_thread_slices(1000000) t
JOIN thread USING (utid)
ORDER BY t.total_ns DESC, t.utid
LIMIT 5;

CREATE PERFETTO MACRO ft_share(part Expr, whole Expr)
RETURNS Expr AS
round(100.0 * ($part) / ft_nonzero!($whole), 3);
