-- Test module for Fathom: included by the fathomtest.sched.* wildcard.
INCLUDE PERFETTO MODULE fathomtest.sched.summary;

CREATE PERFETTO TABLE ft_cpu_share AS
SELECT cpu, ft_share!(busy_ns, (SELECT sum(busy_ns) FROM ft_cpus)) AS pct
FROM ft_cpus
ORDER BY cpu;
