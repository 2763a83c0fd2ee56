SELECT id, ts, ts_end, dur, upid, heap_name FROM heap_profile ORDER BY id;
