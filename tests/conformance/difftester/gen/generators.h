// The feature families of the generated trace, one function per family (each
// in its own file). Each reads and updates the simulated system in `ctx` and
// emits its packets through ctx->Emit.
#pragma once

#include "tests/conformance/difftester/gen/gen_context.h"

namespace fathom::difftester {

// gen_world.cc: init, kthreadd and kthreads, and the seed's processes.
void BuildWorld(GenContext* ctx);

// gen_process.cc: ProcessTree snapshots (odd and missing fields) and
// ProcessStats samples.
void EmitProcessTree(GenContext* ctx, int64_t ts);
void EmitProcessStats(GenContext* ctx, int64_t ts);

// gen_sched.cc: the ftrace stream (scheduling, task lifecycle, atrace prints,
// cpu and memory counters), as per-cpu bundles in full or compact form.
void EmitFtrace(GenContext* ctx);

// gen_track_event.cc: TrackEvent sequences.
void EmitTrackEvents(GenContext* ctx);

// gen_sys_stats.cc: SysStats samples (meminfo, vmstat, cpu times, thermal...).
void EmitSysStats(GenContext* ctx);

// gen_android.cc: logcat batches.
void EmitAndroidLogs(GenContext* ctx);

// gen_heap_profile.cc: heapprofd ProfilePackets (several heaps, continuous dumps).
void EmitHeapProfiles(GenContext* ctx);

// gen_heap_graph.cc: ART heap graphs.
void EmitHeapGraphs(GenContext* ctx);

// gen_clocks.cc: the clock snapshot, moving some packets to other clocks,
// data-loss flags, and the final interleaving of sequences.
void EmitClockSnapshot(GenContext* ctx);
void MoveToOtherClocks(GenContext* ctx);
void MarkDataLoss(GenContext* ctx);
std::vector<TracePacket*> InterleaveSequences(GenContext* ctx);

}  // namespace fathom::difftester
