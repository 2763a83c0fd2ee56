#include "core/import/ftrace_stats_parser.h"

#include "perfetto/trace/ftrace/ftrace_stats.pb.h"

namespace fathom {
namespace {

using perfetto::protos::FtraceCpuStats;
using perfetto::protos::FtraceKprobeStats;
using perfetto::protos::FtraceStats;

struct PhaseStats {
  Stat begin, end, delta;
};

// Indexed by FtraceStatsParser::Counter.
constexpr PhaseStats kCpuStats[] = {
    {Stat::kFtraceCpuEntriesBegin, Stat::kFtraceCpuEntriesEnd, Stat::kFtraceCpuEntriesDelta},
    {Stat::kFtraceCpuOverrunBegin, Stat::kFtraceCpuOverrunEnd, Stat::kFtraceCpuOverrunDelta},
    {Stat::kFtraceCpuCommitOverrunBegin, Stat::kFtraceCpuCommitOverrunEnd,
     Stat::kFtraceCpuCommitOverrunDelta},
    {Stat::kFtraceCpuBytesBegin, Stat::kFtraceCpuBytesEnd, Stat::kFtraceCpuBytesDelta},
    {Stat::kFtraceCpuDroppedEventsBegin, Stat::kFtraceCpuDroppedEventsEnd,
     Stat::kFtraceCpuDroppedEventsDelta},
    {Stat::kFtraceCpuReadEventsBegin, Stat::kFtraceCpuReadEventsEnd,
     Stat::kFtraceCpuReadEventsDelta},
};

// The kernel prints its buffer clocks as seconds with a fraction.
int64_t SecondsToNs(double seconds) { return static_cast<int64_t>(seconds * 1e9); }

}  // namespace

void FtraceStatsParser::Parse(proto::Bytes payload) {
  // Only the two phases are counters snapshots; anything else says nothing.
  std::optional<bool> begin;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id != FtraceStats::kPhaseFieldNumber) continue;
    if (f.int_value == FtraceStats::START_OF_TRACE) begin = true;
    if (f.int_value == FtraceStats::END_OF_TRACE) begin = false;
  }
  if (!begin || d.error()) return;
  MachineState& state = machines_[ctx_->packet_machine_id];
  proto::Decoder e(payload);
  for (proto::Field f = e.Next(); f.valid(); f = e.Next()) {
    if (f.id == FtraceStats::kCpuStatsFieldNumber) ParseCpuStats(f.bytes, *begin, &state);
    if (f.id == FtraceStats::kKprobeStatsFieldNumber) ParseKprobeStats(f.bytes, *begin, &state);
  }
}

void FtraceStatsParser::ParseCpuStats(proto::Bytes bytes, bool begin, MachineState* state) {
  uint32_t cpu = 0;
  CpuCounters counters{};
  double now_ts = 0, oldest_event_ts = 0;
  proto::Decoder d(bytes);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case FtraceCpuStats::kCpuFieldNumber:
        cpu = f.as_uint32();
        break;
      case FtraceCpuStats::kEntriesFieldNumber:
        counters[kEntries] = f.as_int64();
        break;
      case FtraceCpuStats::kOverrunFieldNumber:
        counters[kOverrun] = f.as_int64();
        break;
      case FtraceCpuStats::kCommitOverrunFieldNumber:
        counters[kCommitOverrun] = f.as_int64();
        break;
      case FtraceCpuStats::kBytesReadFieldNumber:
        counters[kBytes] = f.as_int64();
        break;
      case FtraceCpuStats::kDroppedEventsFieldNumber:
        counters[kDroppedEvents] = f.as_int64();
        break;
      case FtraceCpuStats::kReadEventsFieldNumber:
        counters[kReadEvents] = f.as_int64();
        break;
      case FtraceCpuStats::kNowTsFieldNumber:
        now_ts = f.as_double();
        break;
      case FtraceCpuStats::kOldestEventTsFieldNumber:
        oldest_event_ts = f.as_double();
        break;
    }
  }
  if (d.error()) return;
  Stats& stats = ctx_->storage->StatsFor(ctx_->packet_machine_id);
  for (int c = 0; c < kCount; ++c)
    stats.SetIndexed(begin ? kCpuStats[c].begin : kCpuStats[c].end, cpu, counters[c]);
  stats.SetIndexed(begin ? Stat::kFtraceCpuNowTsBegin : Stat::kFtraceCpuNowTsEnd, cpu,
                   SecondsToNs(now_ts));
  stats.SetIndexed(begin ? Stat::kFtraceCpuOldestEventTsBegin : Stat::kFtraceCpuOldestEventTsEnd,
                   cpu, SecondsToNs(oldest_event_ts));
  if (begin) {
    state->begin_by_cpu[cpu] = counters;
    return;
  }
  // A delta needs the start of the same CPU's counters, seen earlier.
  auto it = state->begin_by_cpu.find(cpu);
  if (it == state->begin_by_cpu.end()) return;
  for (int c = 0; c < kCount; ++c)
    stats.SetIndexed(kCpuStats[c].delta, cpu, counters[c] - it->second[c]);
}

void FtraceStatsParser::ParseKprobeStats(proto::Bytes bytes, bool begin, MachineState* state) {
  int64_t hits = 0, misses = 0;
  proto::Decoder d(bytes);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == FtraceKprobeStats::kHitsFieldNumber) hits = f.as_int64();
    if (f.id == FtraceKprobeStats::kMissesFieldNumber) misses = f.as_int64();
  }
  if (d.error()) return;
  Stats& stats = ctx_->storage->StatsFor(ctx_->packet_machine_id);
  stats.Set(begin ? Stat::kFtraceKprobeHitsBegin : Stat::kFtraceKprobeHitsEnd, hits);
  stats.Set(begin ? Stat::kFtraceKprobeMissesBegin : Stat::kFtraceKprobeMissesEnd, misses);
  if (begin) {
    state->begin_kprobe = {hits, misses};
    return;
  }
  if (!state->begin_kprobe) return;
  stats.Set(Stat::kFtraceKprobeHitsDelta, hits - state->begin_kprobe->first);
  stats.Set(Stat::kFtraceKprobeMissesDelta, misses - state->begin_kprobe->second);
}

}  // namespace fathom
