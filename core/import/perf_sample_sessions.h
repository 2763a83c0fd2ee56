// Per perf data source stream (packet sequence): its profiler session and
// the counter tracks of its timebase and follower events, one set per cpu.
// PerfSample.timebase_count and follower_counts become counter values on
// them, as upstream's perf_counter_track.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "core/storage/trace_storage.h"

namespace fathom {

struct SequenceGeneration;
struct TraceContext;
class ProfilerSampleTracker;

class PerfSampleSessions {
 public:
  PerfSampleSessions(TraceContext* ctx, ProfilerSampleTracker* samples)
      : ctx_(ctx), samples_(samples) {}

  // The session of the sample's sequence, created with its first sample.
  uint32_t Session(const SequenceGeneration& gen);
  // (track, value) of the timebase count and each follower count that has a
  // follower event; creates the cpu's tracks with its first sample.
  std::vector<std::pair<uint32_t, double>> CounterValues(const SequenceGeneration& gen,
                                                         uint32_t cpu,
                                                         std::optional<uint64_t> timebase_count,
                                                         const std::vector<uint64_t>& followers);

 private:
  struct Stream {
    uint32_t session = 0;
    std::vector<StringId> names;                       // timebase first, then the followers
    std::map<uint32_t, std::vector<uint32_t>> tracks;  // by cpu, as `names`
  };
  Stream& StreamOf(const SequenceGeneration& gen);

  TraceContext* ctx_;
  ProfilerSampleTracker* samples_;
  std::map<uint32_t, Stream> streams_;  // by packet sequence
};

}  // namespace fathom
