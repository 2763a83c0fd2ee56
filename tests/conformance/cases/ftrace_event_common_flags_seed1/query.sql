select id, ts, name, cpu, utid, arg_set_id, common_flags, ucpu from ftrace_event order by ts, cpu, name, id, ts, name, cpu, utid, arg_set_id, common_flags, ucpu;
