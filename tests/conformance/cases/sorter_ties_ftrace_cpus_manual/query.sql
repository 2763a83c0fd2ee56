select id, ts, cpu, name, utid from ftrace_event order by id
