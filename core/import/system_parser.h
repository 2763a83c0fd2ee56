// Parses the non-ftrace, non-TrackEvent packets by handing each payload to
// the parser of its family: ProcessTree/ProcessStats, SysStats/CpuInfo,
// battery/power rails/entity residency, Android logs and properties, and the
// trace-level metadata (SystemInfo, TraceConfig, TraceStats, ...) and the
// ftrace buffer counters (FtraceStats).
#pragma once

#include <cstdint>
#include <memory>

#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

struct SequenceGeneration;
class AndroidParser;
class ConcurrentSessionParser;
class CpuPerUidParser;
class FtraceStatsParser;
class MetadataParser;
class PowerParser;
class ProcessTreeParser;
class SysStatsParser;

class SystemParser {
 public:
  explicit SystemParser(TraceContext* ctx);
  ~SystemParser();

  // `field_id` is the TracePacket payload field; returns false when this
  // parser does not handle it.
  bool ParsePacket(int64_t ts, uint32_t field_id, proto::Bytes payload, proto::Bytes packet,
                   const SequenceGeneration& gen);
  void OnImportFinished();
  // The process args of /proc snapshots (ProcessTreeParser::FlushProcessArgs).
  void FlushProcessArgs();
  // One Android log line, at its trace time (the tokenizer split it out and sorted it).
  void ParseAndroidLogEvent(int64_t ts, proto::Bytes event);

  MetadataParser& metadata() { return *metadata_; }

 private:
  std::unique_ptr<ProcessTreeParser> process_tree_;
  std::unique_ptr<SysStatsParser> sys_stats_;
  std::unique_ptr<PowerParser> power_;
  std::unique_ptr<AndroidParser> android_;
  std::unique_ptr<CpuPerUidParser> cpu_per_uid_;
  std::unique_ptr<MetadataParser> metadata_;
  std::unique_ptr<FtraceStatsParser> ftrace_stats_;
  std::unique_ptr<ConcurrentSessionParser> concurrent_sessions_;
};

}  // namespace fathom
