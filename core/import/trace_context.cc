#include "core/import/trace_context.h"

#include "core/import/args_tracker.h"
#include "core/import/clock_tracker.h"
#include "core/import/frame_timeline_parser.h"
#include "core/import/ftrace_parser.h"
#include "core/import/heap_graph_parser.h"
#include "core/import/packet_parser.h"
#include "core/import/process_tracker.h"
#include "core/import/profile_parser.h"
#include "core/import/slice_tracker.h"
#include "core/import/system_parser.h"
#include "core/import/track_event_parser.h"
#include "core/import/track_tracker.h"
#include "core/import/translation_table.h"
#include "core/storage/cpu_rows.h"

namespace fathom {

TraceContext::TraceContext()
    : storage(new TraceStorage()),
      args_tracker(new ArgsTracker(storage.get())),
      clock_tracker(new ClockTracker()),
      process_tracker(new ProcessTracker(storage.get())),
      track_tracker(new TrackTracker(storage.get(), args_tracker.get())),
      // `problems` is declared later: only its address is taken here.
      slice_tracker(new SliceTracker(storage.get(), &problems)) {
  ftrace_parser.reset(new FtraceParser(this));
  system_parser.reset(new SystemParser(this));
  track_event_parser.reset(new TrackEventParser(this));
  packet_parser.reset(new PacketParser(this));
  profile_parser.reset(new ProfileParser(this));
  heap_graph_parser.reset(new HeapGraphParser(this));
  frame_timeline_parser.reset(new FrameTimelineParser(this));
  translation_table.reset(new TranslationTable(storage.get()));
}

TraceContext::~TraceContext() = default;

void TraceContext::OnImportFinished() {
  // Upstream's end-of-trace arg sets come in this order: process args, then
  // the rss_stat tracks' dimensions, then the args of slices still open.
  system_parser->FlushProcessArgs();
  ftrace_parser->OnImportFinished();
  system_parser->OnImportFinished();
  track_event_parser->OnImportFinished();
  profile_parser->OnImportFinished();
  heap_graph_parser->OnImportFinished();
  slice_tracker->FlushPendingSlices();
  profile_parser->OnArgsFinished();
  storage->stats.Set(Stat::kClockSyncCacheMiss, clock_tracker->cache_misses());
  storage->stats.Set(Stat::kParseTraceDurationNs,
                     std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::steady_clock::now() - load_started)
                         .count());
  FillCpuRowsFromEvents(storage.get());
  storage->FinalizeDerivedTables();
}

}  // namespace fathom
