#include "core/import/packet_parser.h"

#include "core/import/args_tracker.h"
#include "core/import/chrome_metadata.h"
#include "core/import/frame_timeline_parser.h"
#include "core/import/ftrace_parser.h"
#include "core/import/game_intervention_parser.h"
#include "core/import/heap_graph_parser.h"
#include "core/import/import_logs.h"
#include "core/import/journald_parser.h"
#include "core/import/profile_parser.h"
#include "core/import/sequence_state.h"
#include "core/import/smaps_parser.h"
#include "core/import/system_parser.h"
#include "core/import/track_event_parser.h"
#include "core/import/winscope_parser.h"
#include "perfetto/trace/android/android_misc.pb.h"
#include "perfetto/trace/trace.pb.h"

namespace fathom {

using perfetto::protos::TracePacket;

void PacketParser::ParsePacket(int64_t ts, proto::Bytes packet, const SequenceGeneration& gen) {
  // Find the payload field (the one oneof member a packet carries).
  proto::Decoder d(packet);
  uint32_t field_id = 0;
  proto::Bytes payload;
  int64_t raw_machine_id = 0;
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case TracePacket::kTimestampFieldNumber:
      case TracePacket::kTimestampClockIdFieldNumber:
      case TracePacket::kTrustedPacketSequenceIdFieldNumber:
      case TracePacket::kSequenceFlagsFieldNumber:
      case TracePacket::kIncrementalStateClearedFieldNumber:
      case TracePacket::kPreviousPacketDroppedFieldNumber:
      case TracePacket::kInternedDataFieldNumber:
      case TracePacket::kTracePacketDefaultsFieldNumber:
      case TracePacket::kTrustedUidFieldNumber:
      case TracePacket::kTrustedPidFieldNumber:
      case TracePacket::kFirstPacketOnSequenceFieldNumber:
        break;
      case TracePacket::kMachineIdFieldNumber:
        raw_machine_id = f.as_int64();
        break;
      default:
        if (field_id == 0) {
          field_id = f.id;
          payload = f.bytes;
        }
    }
  }
  // Most packets come from the host: the machine lookup is only for the others.
  ctx_->packet_machine_id =
      raw_machine_id == 0 ? kHostMachineId : ctx_->storage->MachineFor(raw_machine_id);
  switch (field_id) {
    case TracePacket::kGenericKernelTaskStateEventFieldNumber:
    case TracePacket::kGenericKernelTaskRenameEventFieldNumber:
    case TracePacket::kGenericKernelCpuFreqEventFieldNumber:
      ctx_->ftrace_parser->ParseGenericKernelPacket(ts, field_id, payload);
      return;
    case TracePacket::kTrackEventFieldNumber:
    case TracePacket::kTrackDescriptorFieldNumber:
    case TracePacket::kThreadDescriptorFieldNumber:
    case TracePacket::kProcessDescriptorFieldNumber:
      ctx_->track_event_parser->ParsePacket(ts, field_id, payload, packet, gen);
      return;
    // Profilers and heap graphs (profile_parser, heap_graph_parser).
    case TracePacket::kProfilePacketFieldNumber:
      ctx_->profile_parser->ParseProfilePacket(ts, payload, gen);
      return;
    case TracePacket::kPerfSampleFieldNumber:
      ctx_->profile_parser->ParsePerfSample(ts, payload, gen);
      return;
    case TracePacket::kSmapsPacketFieldNumber:
      ParseSmapsPacket(ctx_, ts, payload);
      return;
    case TracePacket::kStackSampleFieldNumber:
      ctx_->profile_parser->ParseStackSample(ts, payload, gen);
      return;
    case TracePacket::kModuleSymbolsFieldNumber:
      ctx_->profile_parser->ParseModuleSymbols(payload);
      return;
    case TracePacket::kArtProcessMetadataFieldNumber:
      ctx_->profile_parser->ParseArtProcessMetadata(ts, payload);
      return;
    case TracePacket::kHeapGraphFieldNumber:
      ctx_->heap_graph_parser->ParseHeapGraph(gen.sequence_id, ts, payload);
      return;
    case TracePacket::kDeobfuscationMappingFieldNumber:
      ctx_->heap_graph_parser->ParseDeobfuscationMapping(payload);
      return;
    case TracePacket::kStreamingProfilePacketFieldNumber:
      ctx_->profile_parser->ParseStreamingProfilePacket(ts, payload, gen);
      return;
    case TracePacket::kFrameTimelineEventFieldNumber:
      ctx_->frame_timeline_parser->ParseEvent(ts, payload);
      return;
    case kJournaldEventFieldNumber:
      ParseJournaldEvent(ctx_, ts, payload);
      return;
    case TracePacket::kWinscopeExtensionsFieldNumber:
      ParseWinscopeExtensions(ctx_, ts, payload);
      return;
    case TracePacket::kPackagesListFieldNumber:
      packages_.Parse(payload);
      return;
    case TracePacket::kAndroidGameInterventionListFieldNumber:
      ParseGameInterventionList(ctx_, payload);
      return;
    case TracePacket::kAndroidAflagsFieldNumber:
      ParseAndroidAflags(ts, payload);
      return;
    case kChromeTriggerFieldNumber:
      if (!ParseChromeTrigger(ctx_, ts, payload))
        ctx_->storage->stats.Increment(Stat::kProtoDecodeErrors);
      return;
    default:
      ctx_->system_parser->ParsePacket(ts, field_id, payload, packet, gen);
  }
}

void PacketParser::ParseAndroidAflags(int64_t ts, proto::Bytes payload) {
  // Only the data source's error is imported (the flags are not).
  using perfetto::protos::AndroidAflags;
  proto::FlatMessage<4> m(payload);
  if (!m.has(AndroidAflags::kErrorFieldNumber)) return;
  auto args = ctx_->args_tracker->NewSet().AddString(
      "error", m[AndroidAflags::kErrorFieldNumber].as_string());
  LogImportProblem(ctx_->storage.get(), Stat::kAndroidAflagsErrors, ts, std::move(args));
}

}  // namespace fathom
