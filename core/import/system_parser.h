// Parses the non-ftrace, non-TrackEvent packets: ProcessTree, ProcessStats,
// SysStats, CpuInfo, SystemInfo, battery, power rails, Android logs and
// properties, and the trace-level metadata (TraceConfig, TraceStats, ...).
#pragma once

#include <cstdint>

#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

struct SequenceGeneration;

class SystemParser {
 public:
  explicit SystemParser(TraceContext* ctx);
  ~SystemParser();

  // `field_id` is the TracePacket payload field; returns false when this
  // parser does not handle it.
  bool ParsePacket(int64_t ts, uint32_t field_id, proto::Bytes payload, proto::Bytes packet,
                   const SequenceGeneration& gen);
  void OnImportFinished();

 private:
  TraceContext* ctx_;
};

}  // namespace fathom
