-- Test module written for Fathom's PerfettoSQL tests (not from Perfetto's
-- standard library). It exercises each kind of PerfettoSQL statement.

-- Scalar function with a bound $argument.
CREATE PERFETTO FUNCTION ft_ms(ns LONG)
RETURNS DOUBLE AS
SELECT $ns / 1e6;

-- 'string; with a semicolon' and "quoted; identifiers" must not split statements.
CREATE PERFETTO FUNCTION ft_label(name STRING, n LONG)
RETURNS STRING AS
SELECT $name || ': ' || $n || ' (' || 'x;y' || ')' AS "label;text";

/* A block comment; with a semicolon. */
CREATE PERFETTO MACRO ft_nonzero(e Expr)
RETURNS Expr AS
iif(($e) = 0, NULL, ($e));

CREATE PERFETTO MACRO ft_count_where(tab TableOrSubquery, cond Expr)
RETURNS Expr AS
(SELECT count(*) FROM $tab WHERE $cond);

CREATE PERFETTO TABLE ft_cpus(cpu LONG, slices LONG, busy_ns LONG, busy_ms DOUBLE) AS
SELECT
  cpu,
  count(*) AS slices,
  sum(dur) AS busy_ns,
  ft_ms(sum(dur)) AS busy_ms
FROM sched
WHERE utid != 0
GROUP BY cpu;

CREATE PERFETTO INDEX ft_cpus_cpu ON ft_cpus(cpu);

CREATE PERFETTO FUNCTION ft_thread_slices(min_ns LONG)
RETURNS TABLE(utid LONG, slices LONG, total_ns LONG) AS
SELECT utid, count(*) AS slices, sum(dur) AS total_ns
FROM sched
WHERE utid != 0
GROUP BY utid
HAVING sum(dur) >= $min_ns;
