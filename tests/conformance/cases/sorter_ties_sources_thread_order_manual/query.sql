select utid, tid, upid from thread order by utid
