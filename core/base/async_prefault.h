// Faults in pages of large blocks on a background thread, ahead of the thread that will
// write them. A load's table writer spends ~40 % of its time in the kernel faulting in
// fresh column memory (zeroing pages, charging them to the memory cgroup); it is the
// slowest stage of the load pipeline, so that time is wall time. Asked a step ahead, a
// helper does the same work on whichever core has a gap, and the writer finds the
// pages present.
//
// Requests are hints. A request whose block has since moved (mremap) or been unmapped
// faults in nothing or memory nobody writes; MADV_POPULATE_WRITE never changes the
// contents of a page, so that is harmless. Where platform::PrefaultLarge does nothing
// (not Linux, kernels before 5.14) no thread is started.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fathom::platform {

// Whether the calling thread's column vectors hand steps to the prefault thread. Off by
// default: it pays only on a thread that bounds a pipeline (the ftrace table writer of a
// compact_sched load); where the cores are busy anyway (full-format loads) the helper
// only adds contention for the kernel's memory locks (~5 % slower).
void SetAsyncPrefaultForThisThread(bool on);
bool AsyncPrefaultForThisThread();

// Queues [p, p + bytes) for platform::PrefaultLarge on the prefault thread (started on
// the first request) and returns at once with the request's ticket (0: not queued, as
// where prefaulting does nothing).
uint64_t PrefaultLargeAsync(void* p, size_t bytes);
// Whether the request with this ticket has been carried out (tickets are served in
// order). A writer that arrives first faults the range in itself: ordinary page faults,
// one per page, cost about twice a batched prefault.
bool AsyncPrefaultDone(uint64_t ticket);

// Blocks until every request queued so far has been carried out (tests).
void WaitForAsyncPrefaults();

}  // namespace fathom::platform
