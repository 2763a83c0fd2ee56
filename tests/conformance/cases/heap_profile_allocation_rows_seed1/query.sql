select id, ts, upid, heap_name, callsite_id, count, size from heap_profile_allocation order by ts, upid, callsite_id, size, id, ts, upid, heap_name, callsite_id, count, size;
