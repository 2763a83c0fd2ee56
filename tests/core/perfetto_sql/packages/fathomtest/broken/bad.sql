-- Test module for Fathom: its second statement names a table that does not exist.
SELECT 1;
CREATE PERFETTO TABLE ft_bad AS
SELECT * FROM ft_no_such_table;
