// Parses callstack-profiler packets: heapprofd ProfilePacket (inline Android 10
// tables or InternedData), perf PerfSample, StackSample, ModuleSymbols
// (offline symbolization) and ArtProcessMetadata (Java OOME callstacks).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "core/import/profile_stack_tracker.h"
#include "core/import/proto_decoder.h"

namespace fathom {

struct SequenceGeneration;
struct TraceContext;

class ProfileParser {
 public:
  explicit ProfileParser(TraceContext* ctx);
  ~ProfileParser();

  void ParseProfilePacket(int64_t ts, proto::Bytes payload, const SequenceGeneration& gen);
  void ParsePerfSample(int64_t ts, proto::Bytes payload, const SequenceGeneration& gen);
  void ParseStackSample(int64_t ts, proto::Bytes payload, const SequenceGeneration& gen);
  void ParseModuleSymbols(proto::Bytes payload);
  void ParseArtProcessMetadata(int64_t ts, proto::Bytes payload);
  void OnImportFinished();

  StackProfileTracker* stack_tracker() { return &stacks_; }

 private:
  struct PendingSample {
    uint32_t upid;
    int64_t ts;
    StringId heap_name;
    uint64_t callstack_iid;
    int64_t alloc_count, alloc_size, free_count, free_size;
  };
  struct HeapprofdSequence;  // per packet sequence (see .cc)

  HeapprofdSequence& Sequence(uint32_t seq_id);
  void CommitDump(HeapprofdSequence& seq, const SequenceGeneration& gen);

  TraceContext* ctx_;
  StackProfileTracker stacks_;
  std::unordered_map<uint32_t, std::unique_ptr<HeapprofdSequence>> sequences_;
  // Last cumulative (alloc_count, alloc_size, free_count, free_size) per
  // (upid, heap, callsite): heapprofd values are cumulative over the session.
  std::map<std::tuple<uint32_t, StringId, uint32_t>, std::array<int64_t, 4>> previous_;
  // Synthetic Java frames of OOME stacks by (name, file, line).
  std::map<std::tuple<StringId, StringId, uint32_t>, uint32_t> java_frames_;
};

}  // namespace fathom
