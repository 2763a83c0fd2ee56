// Splits the Perfetto `Trace` byte stream into TracePackets, keeps each
// sequence's incremental state, converts timestamps to the trace clock, breaks
// ftrace bundles into per-CPU events and pushes everything into the Sorter.
// Packets that define state (clock snapshots, interned data, defaults) are
// applied here, before sorting.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/status.h"
#include "core/import/chunked_tokenizer.h"
#include "core/import/compact_sched.h"
#include "core/import/proto_decoder.h"
#include "core/import/sequence_state.h"
#include "core/import/sorter.h"
#include "core/import/trace_blob.h"
#include "core/import/trace_context.h"

namespace fathom {

class TrackEventTokenizer;

// One TracePacket's top-level fields, decoded once by the tokenizer.
struct PacketView {
  proto::Bytes packet;      // the whole serialized TracePacket
  uint32_t data_field = 0;  // field number of the payload (0 = none)
  proto::Bytes payload;     // its bytes (LEN payloads)
  bool has_timestamp = false;
  uint64_t timestamp = 0;
  uint32_t clock_id = 0;  // 0 = unset
  uint32_t sequence_id = 0;
  uint32_t generation = 0;   // index of the SequenceGeneration
  uint64_t file_offset = 0;  // where the packet starts in the (decompressed) stream
};

class ProtoTokenizer : public ChunkedTokenizer {
 public:
  ProtoTokenizer(TraceContext* ctx, Sorter* sorter);
  ~ProtoTokenizer() override;

  // Tokenizes every whole packet in `blob` (whose first byte is at stream
  // offset `stream_offset`) and keeps the blob alive. Returns the number of
  // bytes at the end that did not form a whole packet: the caller prepends
  // them to the next chunk. Returns an error only for bytes that can never
  // be a Trace (bad field tag), after loading everything before them.
  Result<size_t> Feed(std::unique_ptr<TraceBlob> blob, uint64_t stream_offset) override;
  uint64_t units() const override { return packets_; }

  const SequenceGeneration& generation(uint32_t index) const { return generations_[index]; }
  // For module tokenizers that keep per-sequence state (TrackEvent).
  SequenceGeneration& mutable_generation(uint32_t index) { return generations_[index]; }

  // For module tokenizers: push a parsed packet at trace time `ts`.
  void PushPacket(const PacketView& p, int64_t ts);
  // Converts (clock, value) to trace time; counts clock_sync_failure on failure.
  std::optional<int64_t> ToTraceTime(uint32_t sequence_id, uint32_t clock_id, int64_t value);
  int64_t latest_timestamp() const { return latest_ts_; }

  uint64_t packets() const { return packets_; }
  // Bytes inflated from compressed_packets so far (they count against the
  // file's inflate allowance).
  uint64_t inflated_bytes() const { return inflated_bytes_; }
  uint64_t events() const { return sorter_->size(); }
  size_t retained_bytes() const override { return retained_bytes_; }

 private:
  Status TokenizeStream(const uint8_t* data, size_t size, uint64_t stream_offset, size_t* consumed,
                        bool nested);
  void TokenizePacket(const uint8_t* data, size_t size, uint64_t offset);
  // Counts and reports a top-level Trace field that is not a packet.
  void SkippedTraceField(uint64_t field_id, uint64_t offset);
  void TokenizeFtraceBundle(proto::Bytes bundle, uint32_t generation, uint32_t machine);
  // ftrace_latest_data_start_ns of `machine`: the latest read position any of
  // its bundles reported (last_read_event_timestamp, in trace time).
  void NoteFtraceDataStart(uint32_t machine, int64_t ts);
  void TokenizeCompactSched(uint32_t cpu, proto::Bytes compact);
  void ParseClockSnapshot(uint32_t sequence_id, proto::Bytes snapshot);
  void ApplyInternedData(SequenceGeneration* gen, proto::Bytes interned);
  // A TrackEventRangeOfInterest packet: where --crop-track-events cuts.
  void SetRangeOfInterest(proto::Bytes roi);
  uint32_t chrome_metadata_packets_ = 0;  // ChromeMetadataPackets read so far
  void NewGeneration(uint32_t sequence_id);
  void TokenizeCompressed(proto::Bytes payload, bool zstd, uint64_t offset);
  // AndroidLogPacket: each log line is sorted at its own (REALTIME) time, as a packet
  // of many lines spans seconds; the recorder's counters go to stats (file order).
  void TokenizeAndroidLog(const PacketView& p);
  uint32_t android_log_queue_ = UINT32_MAX;

  struct SequenceState {
    uint32_t generation = 0;
    bool ftrace_setup_errors_counted = false;  // see ftrace_setup_errors.h
  };

  TraceContext* ctx_;
  Sorter* sorter_;
  std::unique_ptr<TrackEventTokenizer> track_event_tokenizer_;
  std::vector<std::unique_ptr<TraceBlob>> blobs_;
  std::deque<SequenceGeneration> generations_;
  std::unordered_map<uint32_t, SequenceState> sequences_;
  // Reused across bundles: a bundle is small and there are many.
  CompactSchedColumns compact_scratch_;
  std::vector<StringId> compact_interns_;
  int64_t latest_ts_ = 0;
  // Ftrace clock -> boot clock, from the (ftrace_timestamp, boot_timestamp)
  // pairs of bundles recorded with a non-boot ftrace clock, ordered by
  // ftrace time. An event converts with the latest pair at or before it
  // (the first pair if it precedes them all), as a clock snapshot would:
  // the pair of its own bundle is taken after the event was recorded.
  struct FtraceClockSync {
    int64_t ftrace_ts;
    int64_t offset;
  };
  std::vector<FtraceClockSync> ftrace_clock_syncs_;
  size_t ftrace_sync_cursor_ = 0;
  std::optional<int64_t> last_ftrace_sync_;        // its ftrace time
  std::map<uint32_t, int64_t> ftrace_data_start_;  // by machine row
  int64_t FtraceToBoot(int64_t ts);
  uint64_t packets_ = 0;
  size_t retained_bytes_ = 0;
  int compressed_depth_ = 0;  // compressed_packets being tokenized around this packet
  uint64_t inflated_bytes_ = 0;
};

}  // namespace fathom
