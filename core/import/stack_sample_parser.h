// StackSample packets: samples of any stack profiler (e.g. a Python wall-time
// sampler) with a task context (process, thread, async context), an execution
// context (cpu, mode), an inline or interned callstack and weights on the
// stream's counters (a primary one and followers). Each packet sequence is
// one profiler session named by its StackSampleDefaults.source.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "core/import/inline_callstacks.h"
#include "core/import/proto_decoder.h"
#include "core/storage/trace_storage.h"

namespace fathom {

struct SequenceGeneration;
struct TraceContext;
class ProfilerSampleTracker;
class StackProfileTracker;

class StackSampleParser {
 public:
  StackSampleParser(TraceContext* ctx, ProfilerSampleTracker* samples, StackProfileTracker* stacks);

  void Parse(int64_t ts, proto::Bytes payload, const SequenceGeneration& gen);

 private:
  // StackSample.CounterDescriptor.
  struct Descriptor {
    StringId name = kNullStringId;
    StringId unit = kNullStringId;
    std::optional<uint64_t> multiplier;
    StringId description = kNullStringId;
  };
  struct Stream {
    std::optional<uint32_t> session;  // created with the first sample
    StringId source = kNullStringId;
    std::optional<Descriptor> primary;
    std::vector<Descriptor> followers;
    std::map<std::pair<StringId, bool>, uint32_t> tracks;  // (name, is_timebase)
  };
  Stream& StreamOf(const SequenceGeneration& gen);
  Descriptor DecodeDescriptor(proto::Bytes msg);
  uint32_t CounterTrack(Stream& stream, const Descriptor& d, bool timebase);
  std::optional<uint32_t> TaskContext(proto::Bytes msg, const SequenceGeneration& gen);
  std::optional<uint32_t> AsyncContext(const SequenceGeneration& gen, uint64_t iid, int depth);
  uint32_t ExecutionContext(proto::Bytes msg);

  TraceContext* ctx_;
  ProfilerSampleTracker* samples_;
  StackProfileTracker* stacks_;
  std::map<uint32_t, Stream> streams_;  // by packet sequence
  std::map<std::pair<const SequenceGeneration*, uint64_t>, std::optional<uint32_t>> async_;
  // Inline frames by (function, file, line): each gets its own symbol.
  InlineCallstackInterner inline_;
};

}  // namespace fathom
