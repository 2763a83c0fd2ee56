SELECT ts, cpu, name FROM ftrace_event ORDER BY ts, cpu;
