// Trace-level packets that become `metadata` rows or `stats` values:
// SystemInfo, TraceConfig, TraceStats, Trigger, TracingServiceEvent and
// TraceUuid, plus the keys every proto trace gets (trace_size_bytes, ...).
#pragma once

#include <cstdint>
#include <string>

#include "core/import/metadata_writer.h"
#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

class MetadataParser {
 public:
  explicit MetadataParser(TraceContext* ctx);

  void ParseSystemInfo(proto::Bytes payload);
  void ParseTraceConfig(proto::Bytes payload);
  void ParseTraceStats(proto::Bytes payload);
  // FtraceStats: only the parse errors the ftrace reader reported are read.
  void ParseFtraceStats(proto::Bytes payload);
  // A Trigger packet, or the trigger that cloned this snapshot.
  void ParseTrigger(int64_t ts, proto::Bytes payload, bool clone_snapshot);
  // TraceAttributes (packet or config): "trace_attribute.<key>" metadata.
  void ParseTraceAttributes(proto::Bytes payload);
  void ParseServiceEvent(int64_t ts, proto::Bytes payload);
  void ParseTraceUuid(proto::Bytes payload);
  // Before anything is read: the uuid a trace without one gets, derived from
  // its leading bytes (core/load/trace_uuid.h). A TraceUuid packet or the
  // config's uuid replaces it.
  void SetDerivedUuid(uint64_t hash) { SetUuid(0, static_cast<int64_t>(hash)); }
  void OnImportFinished();

  MetadataWriter& writer() { return writer_; }

 private:
  // One TraceStats.BufferStats, the idx-th in its packet.
  void ParseBufferStats(proto::Bytes payload, int64_t idx);
  // trace_type and trace_time_clock_id from the files parsed (TraceContext::parsed_files).
  void WriteTraceTypeAndClock();
  void SetUuid(int64_t msb, int64_t lsb);

  TraceContext* ctx_;
  MetadataWriter writer_;
  std::string trace_config_;  // the last TraceConfig packet, serialized
  bool has_uuid_packet_ = false;
};

}  // namespace fathom
