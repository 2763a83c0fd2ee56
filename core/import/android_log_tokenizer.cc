// ProtoTokenizer's part for AndroidLogPacket (see proto_tokenizer.h).
#include "core/import/args_tracker.h"
#include "core/import/clock_tracker.h"
#include "core/import/import_logs.h"
#include "core/import/proto_tokenizer.h"
#include "core/import/sorter.h"
#include "perfetto/trace/android/android_log.pb.h"

namespace fathom {

namespace {

using LogPacket = perfetto::protos::AndroidLogPacket;

// The recorder's counters are running totals: the last packet's value stands (as
// upstream keeps it). A nonzero value is also reported, with where it was read.
void CountLogStats(TraceStorage* s, proto::Bytes stats) {
  proto::Decoder d(stats);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    Stat stat;
    if (f.id == LogPacket::Stats::kNumTotalFieldNumber)
      stat = Stat::kAndroidLogNumTotal;
    else if (f.id == LogPacket::Stats::kNumFailedFieldNumber)
      stat = Stat::kAndroidLogNumFailed;
    else if (f.id == LogPacket::Stats::kNumSkippedFieldNumber)
      stat = Stat::kAndroidLogNumSkipped;
    else
      continue;
    s->stats.Set(stat, f.as_int64());
    if (f.as_int64() > 0) s->stats.Increment(stat, 0);
  }
}

}  // namespace

void ProtoTokenizer::TokenizeAndroidLog(const PacketView& p) {
  proto::Decoder d(p.payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == LogPacket::kStatsFieldNumber) {
      CountLogStats(ctx_->storage.get(), f.bytes);
      continue;
    }
    if (f.id != LogPacket::kEventsFieldNumber) continue;
    int64_t realtime = 0;
    proto::Decoder e(f.bytes);
    for (proto::Field g = e.Next(); g.valid(); g = e.Next())
      if (g.id == LogPacket::LogEvent::kTimestampFieldNumber) realtime = g.as_int64();
    // Log timestamps are wall-clock time, converted with the snapshots seen so far. Unlike
    // a packet's, they are never taken as trace time: without a snapshot that holds
    // REALTIME they are dropped.
    ClockTracker* clocks = ctx_->clock_tracker.get();
    auto ts = clocks->ToTraceTime(kClockRealtime, realtime);
    if (!ts) {
      // Logged as upstream does, with the conversion that failed; its target
      // is the trace clock, TRACE_FILE (11) while no snapshot has set one.
      constexpr int64_t kClockTraceFile = 11;
      auto args = ctx_->args_tracker->NewSet()
                      .AddInt("source_clock_id", kClockRealtime)
                      .AddInt("source_timestamp", realtime)
                      .AddInt("target_clock_id", clocks->has_snapshots()
                                                     ? static_cast<int64_t>(clocks->trace_clock())
                                                     : kClockTraceFile);
      LogImportProblem(ctx_->storage.get(),
                       clocks->Knows(kClockRealtime) ? Stat::kClockSyncFailure
                                                     : Stat::kClockSyncFailureUnknownSourceClock,
                       std::nullopt, std::move(args));
      continue;
    }
    if (android_log_queue_ == UINT32_MAX) android_log_queue_ = sorter_->SourceQueue();
    SortEntry se{};
    se.ts = *ts;
    se.data = f.bytes.data;
    se.size = static_cast<uint32_t>(f.bytes.size);
    se.kind = SortKind::kAndroidLogEvent;
    sorter_->Push(android_log_queue_, se);
  }
}

}  // namespace fathom
