// heapprofd ProfilePackets: per-process dumps of cumulative allocation
// counters, turned into heap_profile_allocation rows as upstream does.
//
// - The packet's own tables (Android 10: strings, mappings, frames,
//   callstacks) are interned in packet order as soon as the packet is parsed,
//   used by a sample or not; they last until the dump ends (the first packet
//   without `continued`). Later producers use InternedData instead, resolved
//   when a sample uses it.
// - Counters are cumulative: a row holds the change since the previous dump
//   of the same process and callsite on the sequence (see CommitDump).
// - All of it is incremental state: a cleared sequence starts afresh.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/import/profile_stack_tracker.h"
#include "core/import/proto_decoder.h"
#include "core/storage/trace_storage.h"

namespace fathom {

struct SequenceGeneration;
struct TraceContext;

class HeapprofdParser {
 public:
  HeapprofdParser(TraceContext* ctx, StackProfileTracker* stacks);
  ~HeapprofdParser();

  void ParseProfilePacket(int64_t ts, proto::Bytes payload, const SequenceGeneration& gen);
  // Drops dumps whose last packet never came.
  void OnImportFinished();

 private:
  struct Sample {
    uint32_t upid;
    int64_t ts;
    StringId heap_name;
    uint64_t callstack_iid;
    int64_t alloc_count, alloc_size, free_count, free_size;
  };
  struct Sequence;  // per sequence generation (see .cc)

  Sequence& SequenceOf(const SequenceGeneration& gen);
  void ParseDump(int64_t ts, proto::Bytes dump, Sequence& seq);
  void CommitDump(Sequence& seq);
  void AddAllocation(Sequence& seq, const Sample& p, uint32_t callsite);

  TraceContext* ctx_;
  StackProfileTracker* stacks_;
  StringId art_heap_;
  std::unordered_map<const SequenceGeneration*, std::unique_ptr<Sequence>> sequences_;
  std::vector<Sequence*> order_;  // creation order, for OnImportFinished
};

}  // namespace fathom
