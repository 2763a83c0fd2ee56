select t.tid, s.ts, s.dur, s.cpu, s.state, (select tid from thread where utid=s.waker_utid) wtid, s.waker_id, s.irq_context, s.id from thread_state s join thread t using(utid) order by s.ts, t.tid
