#include "core/import/metadata_parser.h"

#include <google/protobuf/text_format.h>

#include <array>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "core/import/args_tracker.h"
#include "core/import/clock_tracker.h"
#include "core/import/slice_tracker.h"
#include "core/import/trace_diagnostics.h"
#include "core/import/track_tracker.h"
#include "perfetto/common/trace_attributes.pb.h"
#include "perfetto/common/trace_stats.pb.h"
#include "perfetto/config/trace_config.pb.h"
#include "perfetto/trace/ftrace/ftrace_stats.pb.h"
#include "perfetto/trace/system_info.pb.h"

namespace fathom {

namespace pp = perfetto::protos;

namespace {

// Android SDK level of a release version string, as the CDD maps them.
std::optional<int64_t> VersionToSdk(const std::string& v) {
  if (!v.empty() && (v[0] == 'T' || v[0] == 'S')) return 31;
  static const std::pair<const char*, int64_t> kVersions[] = {
      {"12", 31},    {"11", 30},  {"10", 29},    {"9", 28},    {"8.1", 27},
      {"8.0", 26},   {"7.1", 25}, {"7.0", 24},   {"6.0", 23},  {"5.1", 22},
      {"5.1.1", 22}, {"5.0", 21}, {"5.0.1", 21}, {"5.0.2", 21}};
  for (const auto& [name, sdk] : kVersions)
    if (v == name) return sdk;
  return std::nullopt;
}

// Fingerprints look like brand/product/device:VERSION/BUILD_ID/INCREMENTAL:type/tags.
std::optional<int64_t> FingerprintToSdk(std::string_view fp) {
  size_t colon = fp.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  size_t slash = fp.find('/', colon);
  if (slash == std::string_view::npos) return std::nullopt;
  return VersionToSdk(std::string(fp.substr(colon + 1, slash - colon - 1)));
}

std::optional<std::string_view> FingerprintToIncremental(std::string_view fp) {
  size_t pos = 0;
  for (int i = 0; i < 4; ++i) {
    pos = fp.find('/', pos);
    if (pos == std::string_view::npos) return std::nullopt;
    ++pos;
  }
  std::string_view rest = fp.substr(pos);
  return rest.substr(0, rest.find(':'));
}

}  // namespace

MetadataParser::MetadataParser(TraceContext* ctx) : ctx_(ctx), writer_(ctx->storage.get()) {}

void MetadataParser::ParseSystemInfo(proto::Bytes payload) {
  using SI = pp::SystemInfo;
  // A SystemInfo describes the machine that wrote it: its keys and its
  // `machine` row.
  const uint32_t machine_id = ctx_->packet_machine_id;
  writer_.set_machine(machine_id);
  MachineTable& machine = ctx_->storage->machine;
  auto set_machine_string = [&](StringColumn& column, std::string_view value) {
    column.Set(machine_id, ctx_->storage->Intern(value));
  };
  proto::Decoder d(payload);
  std::optional<int64_t> sdk;
  std::string_view fingerprint;
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case SI::kUtsnameFieldNumber: {
        proto::Decoder u(f.bytes);
        for (proto::Field g = u.Next(); g.valid(); g = u.Next()) {
          switch (g.id) {
            case pp::Utsname::kSysnameFieldNumber:
              writer_.SetString("system_name", g.as_string());
              set_machine_string(machine.sysname, g.as_string());
              break;
            case pp::Utsname::kVersionFieldNumber:
              writer_.SetString("system_version", g.as_string());
              set_machine_string(machine.version, g.as_string());
              break;
            case pp::Utsname::kReleaseFieldNumber:
              writer_.SetString("system_release", g.as_string());
              set_machine_string(machine.release, g.as_string());
              break;
            case pp::Utsname::kMachineFieldNumber:
              writer_.SetString("system_machine", g.as_string());
              set_machine_string(machine.arch, g.as_string());
              break;
          }
        }
        break;
      }
      case SI::kAndroidBuildFingerprintFieldNumber:
        fingerprint = f.as_string();
        writer_.SetString("android_build_fingerprint", fingerprint);
        set_machine_string(machine.android_build_fingerprint, fingerprint);
        if (auto inc = FingerprintToIncremental(fingerprint))
          writer_.SetString("android_incremental_build", *inc);
        break;
      case SI::kAndroidSdkVersionFieldNumber:
        sdk = f.as_int64();
        break;
      case SI::kTimezoneOffMinsFieldNumber:
        writer_.SetInt("timezone_off_mins", f.as_int32());
        break;
      case SI::kTracingServiceVersionFieldNumber:
        writer_.SetString("tracing_service_version", f.as_string());
        break;
      case SI::kAndroidSocModelFieldNumber:
        writer_.SetString("android_soc_model", f.as_string());
        break;
      case SI::kAndroidGuestSocModelFieldNumber:
        writer_.SetString("android_guest_soc_model", f.as_string());
        break;
      case SI::kAndroidHardwareRevisionFieldNumber:
        writer_.SetString("android_hardware_revision", f.as_string());
        break;
      case SI::kAndroidStorageModelFieldNumber:
        writer_.SetString("android_storage_model", f.as_string());
        break;
      case SI::kAndroidRamModelFieldNumber:
        writer_.SetString("android_ram_model", f.as_string());
        break;
      case SI::kAndroidDeviceManufacturerFieldNumber:
        writer_.SetString("android_device_manufacturer", f.as_string());
        set_machine_string(machine.android_device_manufacturer, f.as_string());
        break;
      case SI::kAndroidSerialConsoleFieldNumber:
        writer_.SetString("android_serial_console", f.as_string());
        break;
      case SI::kSystemRamBytesFieldNumber: {
        int64_t bytes = f.as_int64();
        // Marketing gigabytes, to the nearest one (upstream: 12.4e9 bytes is
        // 12 GB, 12.6e9 is 13).
        int64_t gb = std::llround(static_cast<double>(bytes) / 1e9);
        writer_.SetInt("system_ram_bytes", bytes);
        writer_.SetInt("system_ram_gb", gb);
        machine.system_ram_bytes.Set(machine_id, bytes);
        machine.system_ram_gb.Set(machine_id, gb);
        break;
      }
      case SI::kNumCpusFieldNumber:
        machine.num_cpus.Set(machine_id, f.as_int64());
        break;
    }
  }
  if (!sdk && !fingerprint.empty()) sdk = FingerprintToSdk(fingerprint);
  if (sdk) {
    writer_.SetInt("android_sdk_version", *sdk);
    machine.android_sdk_version.Set(machine_id, *sdk);
  }
}

void MetadataParser::SetUuid(int64_t msb, int64_t lsb) {
  uint64_t m = static_cast<uint64_t>(msb), l = static_cast<uint64_t>(lsb);
  char buf[40];
  snprintf(buf, sizeof buf, "%08" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%012" PRIx64,
           m >> 32, (m >> 16) & 0xffff, m & 0xffff, l >> 48, l & uint64_t{0xffffffffffff});
  writer_.SetString("trace_uuid", buf);
}

void MetadataParser::ParseTraceConfig(proto::Bytes payload) {
  // Diagnosed once the import is done, when what the recording reported is known.
  trace_config_.assign(reinterpret_cast<const char*>(payload.data), payload.size);
  // Once per trace, so libprotobuf's text printer is affordable here and
  // gives the same field order and indentation as upstream's pbtxt.
  pp::TraceConfig cfg;
  if (cfg.ParseFromArray(payload.data, static_cast<int>(payload.size))) {
    // The config's attributes; a TraceAttributes packet may override them.
    if (cfg.has_trace_attributes()) {
      std::string attributes = cfg.trace_attributes().SerializeAsString();
      ParseTraceAttributes(
          {reinterpret_cast<const uint8_t*>(attributes.data()), attributes.size()});
    }
    std::string text;
    google::protobuf::TextFormat::PrintToString(cfg, &text);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    writer_.SetString("trace_config_pbtxt", text);
    if (cfg.has_unique_session_name())
      writer_.SetString("unique_session_name", cfg.unique_session_name());
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    // Deprecated upstream in favour of the TraceUuid packet, but traces from before it
    // carry their uuid only here, and upstream still reads it.
    if (!has_uuid_packet_ && (cfg.has_trace_uuid_msb() || cfg.has_trace_uuid_lsb()))
      SetUuid(cfg.trace_uuid_msb(), cfg.trace_uuid_lsb());
#pragma GCC diagnostic pop
  } else {
    ctx_->storage->stats.Increment(Stat::kProtoDecodeErrors);
  }
}

void MetadataParser::ParseTraceUuid(proto::Bytes payload) {
  int64_t msb = 0, lsb = 0;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == pp::TraceUuid::kMsbFieldNumber) msb = f.as_int64();
    if (f.id == pp::TraceUuid::kLsbFieldNumber) lsb = f.as_int64();
  }
  has_uuid_packet_ = true;
  SetUuid(msb, lsb);
}

void MetadataParser::ParseTrigger(int64_t ts, proto::Bytes payload, bool clone_snapshot) {
  std::string_view name, producer;
  std::optional<int64_t> producer_uid;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == pp::Trigger::kTriggerNameFieldNumber) name = f.as_string();
    if (f.id == pp::Trigger::kProducerNameFieldNumber) producer = f.as_string();
    if (f.id == pp::Trigger::kTrustedProducerUidFieldNumber) producer_uid = f.as_int32();
  }
  // The trigger that decided the trace's fate: the one that cloned this
  // snapshot, else the earliest.
  if (clone_snapshot || !writer_.Has("trace_trigger")) writer_.SetString("trace_trigger", name);
  // Every trigger is also an instant on the trace's "Trace Triggers" track.
  TraceStorage& s = *ctx_->storage;
  uint32_t track =
      ctx_->track_tracker->InternGlobalTrack(s.Intern("Trace Triggers"), s.Intern("triggers"));
  ArgsTracker::Builder args = ctx_->args_tracker->NewSet();
  if (!producer.empty()) args.AddString("producer_name", producer);
  if (producer_uid) args.AddInt("trusted_producer_uid", *producer_uid);
  ctx_->slice_tracker->Scoped(ts, track, kNullStringId, s.Intern(name), 0, std::move(args));
  s.UpdateBounds(ts);
}

void MetadataParser::ParseTraceAttributes(proto::Bytes payload) {
  using A = pp::TraceAttributes::Attribute;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id != pp::TraceAttributes::kAttributeFieldNumber) continue;
    std::string key;
    std::optional<int64_t> long_value;
    std::optional<std::string_view> string_value;
    proto::Decoder a(f.bytes);
    for (proto::Field g = a.Next(); g.valid(); g = a.Next()) {
      if (g.id == A::kKeyFieldNumber) key = "trace_attribute." + std::string(g.as_string());
      if (g.id == A::kLongValueFieldNumber) long_value = g.as_int64();
      if (g.id == A::kStringValueFieldNumber) string_value = g.as_string();
    }
    if (string_value) {
      writer_.SetString(key, *string_value);
    } else if (long_value) {
      writer_.SetInt(key, *long_value);
    }
  }
}

void MetadataParser::ParseServiceEvent(int64_t ts, proto::Bytes payload) {
  using E = pp::TracingServiceEvent;
  writer_.set_machine(ctx_->packet_machine_id);  // its keys are per machine
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case E::kTracingStartedFieldNumber:
        writer_.SetInt("tracing_started_ns", ts);
        break;
      case E::kTracingDisabledFieldNumber:
        writer_.SetInt("tracing_disabled_ns", ts);
        break;
      case E::kAllDataSourcesStartedFieldNumber:
        writer_.SetInt("all_data_source_started_ns", ts);
        break;
      case E::kAllDataSourcesFlushedFieldNumber:
        writer_.AppendInt("all_data_source_flushed_ns", ts);
        break;
      case E::kSlowStartingDataSourcesFieldNumber:
      case E::kLastFlushSlowDataSourcesFieldNumber: {
        const char* key = f.id == E::kSlowStartingDataSourcesFieldNumber
                              ? "slow_start_data_source"
                              : "last_flush_slow_data_source";
        proto::Decoder ds(f.bytes);
        for (proto::Field g = ds.Next(); g.valid(); g = ds.Next()) {
          if (g.id != E::DataSources::kDataSourceFieldNumber) continue;
          std::string producer, name;
          proto::Decoder one(g.bytes);
          for (proto::Field h = one.Next(); h.valid(); h = one.Next()) {
            if (h.id == E::DataSources::DataSource::kProducerNameFieldNumber)
              producer = h.as_string();
            if (h.id == E::DataSources::DataSource::kDataSourceNameFieldNumber)
              name = h.as_string();
          }
          writer_.AppendString(key, producer + " " + name);
        }
        break;
      }
    }
  }
}

namespace {

// The per-buffer stat each BufferStats field fills.
std::optional<Stat> BufferStat(uint32_t field) {
  using BS = pp::TraceStats::BufferStats;
  switch (field) {
    case BS::kBufferSizeFieldNumber:
      return Stat::kTracedBufBufferSize;
    case BS::kBytesWrittenFieldNumber:
      return Stat::kTracedBufBytesWritten;
    case BS::kBytesOverwrittenFieldNumber:
      return Stat::kTracedBufBytesOverwritten;
    case BS::kBytesReadFieldNumber:
      return Stat::kTracedBufBytesRead;
    case BS::kPaddingBytesWrittenFieldNumber:
      return Stat::kTracedBufPaddingBytesWritten;
    case BS::kPaddingBytesClearedFieldNumber:
      return Stat::kTracedBufPaddingBytesCleared;
    case BS::kChunksWrittenFieldNumber:
      return Stat::kTracedBufChunksWritten;
    case BS::kChunksRewrittenFieldNumber:
      return Stat::kTracedBufChunksRewritten;
    case BS::kChunksOverwrittenFieldNumber:
      return Stat::kTracedBufChunksOverwritten;
    case BS::kChunksDiscardedFieldNumber:
      return Stat::kTracedBufChunksDiscarded;
    case BS::kChunksReadFieldNumber:
      return Stat::kTracedBufChunksRead;
    case BS::kChunksCommittedOutOfOrderFieldNumber:
      return Stat::kTracedBufChunksCommittedOutOfOrder;
    case BS::kChunksRelocatedFieldNumber:
      return Stat::kTracedBufChunksRelocated;
    case BS::kWriteWrapCountFieldNumber:
      return Stat::kTracedBufWriteWrapCount;
    case BS::kPatchesSucceededFieldNumber:
      return Stat::kTracedBufPatchesSucceeded;
    case BS::kPatchesFailedFieldNumber:
      return Stat::kTracedBufPatchesFailed;
    case BS::kReadaheadsSucceededFieldNumber:
      return Stat::kTracedBufReadaheadsSucceeded;
    case BS::kReadaheadsFailedFieldNumber:
      return Stat::kTracedBufReadaheadsFailed;
    case BS::kAbiViolationsFieldNumber:
      return Stat::kTracedBufAbiViolations;
    case BS::kTraceWriterPacketLossFieldNumber:
      return Stat::kTracedBufTraceWriterPacketLoss;
    default:
      return std::nullopt;
  }
}

}  // namespace

// Every per-buffer stat gets a row for the buffer, 0 when the field is
// absent, as upstream shows them.
void MetadataParser::ParseBufferStats(proto::Bytes payload, int64_t idx) {
  Stats& stats = ctx_->storage->stats;
  for (uint32_t s = static_cast<uint32_t>(Stat::kTracedBufBufferSize);
       s <= static_cast<uint32_t>(Stat::kTracedBufTraceWriterPacketLoss); ++s)
    stats.SetIndexed(static_cast<Stat>(s), idx, 0);
  proto::Decoder b(payload);
  for (proto::Field g = b.Next(); g.valid(); g = b.Next())
    if (std::optional<Stat> s = BufferStat(g.id)) stats.SetIndexed(*s, idx, g.as_int64());
}

void MetadataParser::ParseTraceStats(proto::Bytes payload) {
  using TS = pp::TraceStats;
  Stats& stats = ctx_->storage->stats;
  std::map<uint64_t, uint32_t> buffer_of_sequence;
  int64_t buffer_idx = 0;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case TS::kBufferStatsFieldNumber:
        ParseBufferStats(f.bytes, buffer_idx++);
        break;
      case TS::kProducersConnectedFieldNumber:
        stats.Set(Stat::kTracedProducersConnected, f.as_int64());
        break;
      case TS::kProducersSeenFieldNumber:
        stats.Set(Stat::kTracedProducersSeen, f.as_int64());
        break;
      case TS::kDataSourcesRegisteredFieldNumber:
        stats.Set(Stat::kTracedDataSourcesRegistered, f.as_int64());
        break;
      case TS::kDataSourcesSeenFieldNumber:
        stats.Set(Stat::kTracedDataSourcesSeen, f.as_int64());
        break;
      case TS::kTracingSessionsFieldNumber:
        stats.Set(Stat::kTracedTracingSessions, f.as_int64());
        break;
      case TS::kTotalBuffersFieldNumber:
        stats.Set(Stat::kTracedTotalBuffers, f.as_int64());
        break;
      case TS::kChunksDiscardedFieldNumber:
        stats.Set(Stat::kTracedChunksDiscarded, f.as_int64());
        break;
      case TS::kPatchesDiscardedFieldNumber:
        stats.Set(Stat::kTracedPatchesDiscarded, f.as_int64());
        break;
      case TS::kFlushesRequestedFieldNumber:
        stats.Set(Stat::kTracedFlushesRequested, f.as_int64());
        break;
      case TS::kFlushesSucceededFieldNumber:
        stats.Set(Stat::kTracedFlushesSucceeded, f.as_int64());
        break;
      case TS::kFlushesFailedFieldNumber:
        stats.Set(Stat::kTracedFlushesFailed, f.as_int64());
        break;
      case TS::kFinalFlushOutcomeFieldNumber:
        if (f.as_int64() == TS::FINAL_FLUSH_SUCCEEDED)
          stats.Increment(Stat::kTracedFinalFlushSucceeded);
        if (f.as_int64() == TS::FINAL_FLUSH_FAILED) stats.Increment(Stat::kTracedFinalFlushFailed);
        break;
      case TS::kFilterStatsFieldNumber: {
        using FS = TS::FilterStats;
        int64_t discarded_idx = 0;
        proto::Decoder fs(f.bytes);
        for (proto::Field g = fs.Next(); g.valid(); g = fs.Next()) {
          switch (g.id) {
            case FS::kInputPacketsFieldNumber:
              stats.Set(Stat::kFilterInputPackets, g.as_int64());
              break;
            case FS::kInputBytesFieldNumber:
              stats.Set(Stat::kFilterInputBytes, g.as_int64());
              break;
            case FS::kOutputBytesFieldNumber:
              stats.Set(Stat::kFilterOutputBytes, g.as_int64());
              break;
            case FS::kErrorsFieldNumber:
              stats.Set(Stat::kFilterErrors, g.as_int64());
              break;
            case FS::kTimeTakenNsFieldNumber:
              stats.Set(Stat::kFilterTimeTakenNs, g.as_int64());
              break;
            case FS::kBytesDiscardedPerBufferFieldNumber:
              if (g.type == proto::WireType::kLengthDelimited) {
                proto::PackedVarints pv(g.bytes);
                for (uint64_t v; pv.Next(&v);)
                  stats.SetIndexed(Stat::kTracedBufBytesFilteredOut, discarded_idx++,
                                   static_cast<int64_t>(v));
              } else {
                stats.SetIndexed(Stat::kTracedBufBytesFilteredOut, discarded_idx++, g.as_int64());
              }
              break;
          }
        }
        break;
      }
      case TS::kWriterStatsFieldNumber: {
        uint64_t seq = 0;
        uint32_t buffer = 0;
        proto::Decoder w(f.bytes);
        for (proto::Field g = w.Next(); g.valid(); g = w.Next()) {
          if (g.id == TS::WriterStats::kSequenceIdFieldNumber) seq = g.as_uint64();
          if (g.id == TS::WriterStats::kBufferFieldNumber) buffer = g.as_uint32();
        }
        buffer_of_sequence[seq] = buffer;
        break;
      }
    }
  }
  // What each writer sequence lost, attributed to its buffer (every stat gets
  // a row for the buffer, zero or not, as upstream).
  for (const auto& [seq, buffer] : buffer_of_sequence) {
    auto it = ctx_->packet_loss_by_sequence.find(static_cast<uint32_t>(seq));
    if (it == ctx_->packet_loss_by_sequence.end()) continue;
    const TraceContext::SequenceLoss& loss = it->second;
    stats.IncrementIndexed(Stat::kTracedBufSequencePacketLoss, buffer, loss.packets_lost);
    static constexpr Stat kCauseStats[] = {Stat::kTracedBufDataLossReadGap,
                                           Stat::kTracedBufDataLossChunkCorrupted,
                                           Stat::kTracedBufDataLossOrphanContinuation,
                                           Stat::kTracedBufDataLossReassemblyGap,
                                           Stat::kTracedBufDataLossReassemblyBrokenChain,
                                           Stat::kTracedBufDataLossOverwrite,
                                           Stat::kTracedBufDataLossWriterAbort,
                                           Stat::kTracedBufDataLossSmbFull};
    static_assert(std::size(kCauseStats) == std::tuple_size_v<decltype(loss.causes)>);
    for (size_t i = 0; i < loss.causes.size(); ++i)
      stats.IncrementIndexed(kCauseStats[i], buffer, loss.causes[i]);
    bool all_dropped = loss.incremental_skipped && !loss.incremental_parsed;
    stats.IncrementIndexed(Stat::kTracedBufIncrementalSequencesDropped, buffer,
                           all_dropped ? 1 : 0);
  }
}

void MetadataParser::ParseFtraceStats(proto::Bytes payload) {
  using FS = pp::FtraceStats;
  auto count = [this](uint64_t status) {
    // A page whose event claimed zero data length is skipped by the reader
    // and merely noted; upstream refuses to load traces with any other ABI
    // error, which Fathom imports as far as they go.
    if (status == pp::FTRACE_STATUS_ABI_ZERO_DATA_LENGTH)
      ctx_->storage->stats.Increment(Stat::kFtraceAbiErrorsSkippedZeroDataLength);
  };
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id != FS::kFtraceParseErrorsFieldNumber) continue;
    if (f.type == proto::WireType::kLengthDelimited) {
      proto::PackedVarints pv(f.bytes);
      for (uint64_t v; pv.Next(&v);) count(v);
    } else {
      count(f.as_uint64());
    }
  }
}

void MetadataParser::OnImportFinished() {
  writer_.set_machine(kHostMachineId);
  if (!trace_config_.empty()) RecordTraceDiagnostics(ctx_, trace_config_);
  writer_.SetInt("trace_size_bytes", static_cast<int64_t>(ctx_->trace_size_bytes));
  WriteTraceTypeAndClock();
}

void MetadataParser::WriteTraceTypeAndClock() {
  const auto& files = ctx_->parsed_files;
  if (!writer_.Has("trace_type"))
    writer_.SetString("trace_type", files.empty() ? "proto" : files.front().type);
  // The first file with a clock names it: a protobuf trace's only once it
  // had a clock snapshot (upstream writes no trace_time_clock_id without).
  for (const TraceContext::ParsedFile& f : files) {
    std::optional<int64_t> clock = f.time_clock;
    if (f.proto && ctx_->clock_tracker->has_snapshots())
      clock = static_cast<int64_t>(ctx_->clock_tracker->trace_clock());
    if (!clock) continue;
    writer_.SetInt("trace_time_clock_id", *clock);
    return;
  }
}

}  // namespace fathom
