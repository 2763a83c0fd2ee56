#include "core/import/system_parser.h"

#include "core/import/android_cpu_per_uid.h"
#include "core/import/android_parser.h"
#include "core/import/concurrent_session_parser.h"
#include "core/import/ftrace_stats_parser.h"
#include "core/import/metadata_parser.h"
#include "core/import/power_parser.h"
#include "core/import/process_tree_parser.h"
#include "core/import/sys_stats_parser.h"
#include "perfetto/trace/trace.pb.h"

namespace fathom {

using perfetto::protos::TracePacket;

SystemParser::SystemParser(TraceContext* ctx)
    : process_tree_(new ProcessTreeParser(ctx)),
      sys_stats_(new SysStatsParser(ctx)),
      power_(new PowerParser(ctx)),
      android_(new AndroidParser(ctx)),
      cpu_per_uid_(new CpuPerUidParser(ctx)),
      metadata_(new MetadataParser(ctx)),
      ftrace_stats_(new FtraceStatsParser(ctx)),
      concurrent_sessions_(new ConcurrentSessionParser(ctx)) {}

SystemParser::~SystemParser() = default;

bool SystemParser::ParsePacket(int64_t ts, uint32_t field_id, proto::Bytes payload,
                               proto::Bytes /*packet*/, const SequenceGeneration& /*gen*/) {
  switch (field_id) {
    case TracePacket::kProcessTreeFieldNumber:
      process_tree_->ParseProcessTree(ts, payload);
      return true;
    case TracePacket::kProcessStatsFieldNumber:
      process_tree_->ParseProcessStats(ts, payload);
      return true;
    case TracePacket::kSysStatsFieldNumber:
      sys_stats_->ParseSysStats(ts, payload);
      return true;
    case TracePacket::kCpuInfoFieldNumber:
      sys_stats_->ParseCpuInfo(payload);
      return true;
    case TracePacket::kBatteryFieldNumber:
      power_->ParseBattery(ts, payload);
      return true;
    case TracePacket::kPowerRailsFieldNumber:
      power_->ParsePowerRails(ts, payload);
      return true;
    case TracePacket::kEntityStateResidencyFieldNumber:
      power_->ParseEntityStateResidency(ts, payload);
      return true;
    case TracePacket::kAndroidEnergyEstimationBreakdownFieldNumber:
      power_->ParseEnergyEstimationBreakdown(ts, payload);
      return true;
    case kCpuPerUidDataFieldNumber:
      cpu_per_uid_->Parse(ts, payload);
      return true;
    case TracePacket::kAndroidSystemPropertyFieldNumber:
      android_->ParseSystemProperty(ts, payload);
      return true;
    case TracePacket::kInitialDisplayStateFieldNumber:
      android_->ParseInitialDisplayState(ts, payload);
      return true;
    case TracePacket::kSystemInfoFieldNumber:
      metadata_->ParseSystemInfo(payload);
      return true;
    case TracePacket::kTraceConfigFieldNumber:
      metadata_->ParseTraceConfig(payload);
      return true;
    case TracePacket::kFtraceStatsFieldNumber:
      // Per-CPU ring buffer counters, then the ABI errors the reader met.
      ftrace_stats_->Parse(payload);
      metadata_->ParseFtraceStats(payload);
      return true;
    case TracePacket::kTraceStatsFieldNumber:
      metadata_->ParseTraceStats(payload);
      return true;
    case ConcurrentSessionParser::kFieldNumber:
      concurrent_sessions_->Parse(ts, payload);
      return true;
    case TracePacket::kTriggerFieldNumber:
      metadata_->ParseTrigger(ts, payload, /*clone_snapshot=*/false);
      return true;
    case TracePacket::kCloneSnapshotTriggerFieldNumber:
      metadata_->ParseTrigger(ts, payload, /*clone_snapshot=*/true);
      return true;
    case TracePacket::kTraceAttributesFieldNumber:
      metadata_->ParseTraceAttributes(payload);
      return true;
    case TracePacket::kServiceEventFieldNumber:
      metadata_->ParseServiceEvent(ts, payload);
      return true;
    case TracePacket::kTraceUuidFieldNumber:
      metadata_->ParseTraceUuid(payload);
      return true;
    default:
      return false;
  }
}

void SystemParser::OnImportFinished() {
  metadata_->OnImportFinished();
}

void SystemParser::FlushProcessArgs() { process_tree_->FlushProcessArgs(); }

void SystemParser::ParseAndroidLogEvent(int64_t ts, proto::Bytes event) {
  android_->ParseLogEvent(ts, event);
}

}  // namespace fathom
