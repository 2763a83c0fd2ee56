select f.id, f.ts, f.cpu, f.name, t.tid from ftrace_event f left join thread t using(utid) order by f.id
