// Parses callstack-profiler packets: heapprofd ProfilePacket (inline Android 10
// tables or InternedData), perf PerfSample, StackSample, Chrome's
// StreamingProfilePacket, ModuleSymbols (offline symbolization) and
// ArtProcessMetadata (Java OOME callstacks).
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

#include "core/import/heapprofd_parser.h"
#include "core/import/perf_sample_sessions.h"
#include "core/import/profile_stack_tracker.h"
#include "core/import/profiler_sample_tracker.h"
#include "core/import/proto_decoder.h"
#include "core/import/stack_sample_parser.h"

namespace fathom {

struct SequenceGeneration;
struct TraceContext;
struct PacketView;
class ProtoTokenizer;

class ProfileParser {
 public:
  explicit ProfileParser(TraceContext* ctx);
  ~ProfileParser();

  void ParseProfilePacket(int64_t ts, proto::Bytes payload, const SequenceGeneration& gen);
  void ParsePerfSample(int64_t ts, proto::Bytes payload, const SequenceGeneration& gen);
  void ParseStackSample(int64_t ts, proto::Bytes payload, const SequenceGeneration& gen);
  // StreamingProfilePacket: its samples are delta-encoded against the
  // sequence's ThreadDescriptor reference time, which later packets of the
  // sequence advance, so times and the thread are resolved while tokenizing
  // (in file order) and the packet is sorted at its first time.
  void TokenizeStreamingProfilePacket(const PacketView& p, ProtoTokenizer* tokenizer);
  // One cpu_profile_stack_sample row per (callstack_iid, timestamp_delta_us).
  void ParseStreamingProfilePacket(int64_t ts, proto::Bytes payload, const SequenceGeneration& gen);
  // Kept until the end of the import: symbols are usually appended to the
  // trace (`fathom-cli symbolize`), and frames of dumps committed at the end
  // must get them too.
  void ParseModuleSymbols(proto::Bytes payload);
  void ParseArtProcessMetadata(int64_t ts, proto::Bytes payload);
  void OnImportFinished();
  // After every arg set is written (open slices' included): translates the
  // args that name native symbols (native_symbol_args.h).
  void OnArgsFinished();

  StackProfileTracker* stack_tracker() { return &stacks_; }

 private:
  void ApplyModuleSymbols(proto::Bytes payload);

  TraceContext* ctx_;
  StackProfileTracker stacks_;
  ProfilerSampleTracker profiler_samples_;
  PerfSampleSessions perf_sessions_;
  StackSampleParser stack_samples_;
  HeapprofdParser heapprofd_;
  // What TokenizeStreamingProfilePacket resolved, by payload address.
  struct StreamingPacketInfo {
    int64_t base_ts;   // trace time the deltas start from
    int64_t pid, tid;  // the sequence's ThreadDescriptor (0 when none)
  };
  std::unordered_map<const uint8_t*, StreamingPacketInfo> streaming_;
  // Synthetic Java frames of OOME stacks by (name, file, line).
  std::map<std::tuple<StringId, StringId, uint32_t>, uint32_t> java_frames_;
  std::vector<std::string> module_symbols_;  // ModuleSymbols payloads, applied last
};

}  // namespace fathom
