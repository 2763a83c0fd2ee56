#include "core/import/ftrace_io_events.h"

#include <cstdio>

#include "core/import/args_tracker.h"
#include "core/import/slice_tracker.h"
#include "core/import/track_tracker.h"
#include "perfetto/trace/ftrace/ftrace_event_bundle.pb.h"

namespace fathom {

namespace pb = perfetto::protos;

namespace {
using Flat = proto::FlatMessage<16>;
}  // namespace

FtraceIoEvents::FtraceIoEvents(TraceContext* ctx) : ctx_(ctx), storage_(ctx->storage.get()) {
  block_io_ = storage_->Intern("block_io");
  android_fs_ = storage_->Intern("android_fs");
  android_fs_data_read_ = storage_->Intern("android_fs_data_read");
  napi_gro_ = storage_->Intern("napi_gro");
  cpu_napi_gro_ = storage_->Intern("cpu_napi_gro");
}

bool FtraceIoEvents::Handles(uint32_t event_id) {
  using FE = pb::FtraceEvent;
  switch (event_id) {
    case FE::kBlockIoStartFieldNumber:
    case FE::kBlockIoDoneFieldNumber:
    case FE::kAndroidFsDatareadStartFieldNumber:
    case FE::kAndroidFsDatareadEndFieldNumber:
    case FE::kNapiGroReceiveEntryFieldNumber:
    case FE::kNapiGroReceiveExitFieldNumber:
      return true;
    default:
      return false;
  }
}

void FtraceIoEvents::Parse(int64_t ts, uint32_t cpu, uint32_t pid, uint32_t event_id,
                           proto::Bytes payload) {
  using FE = pb::FtraceEvent;
  switch (event_id) {
    case FE::kBlockIoStartFieldNumber:
      return ParseBlockIo(ts, payload, true);
    case FE::kBlockIoDoneFieldNumber:
      return ParseBlockIo(ts, payload, false);
    case FE::kAndroidFsDatareadStartFieldNumber:
      return ParseAndroidFsStart(ts, pid, payload);
    case FE::kAndroidFsDatareadEndFieldNumber:
      return ParseAndroidFsEnd(ts, payload);
    case FE::kNapiGroReceiveEntryFieldNumber:
      return ParseNapiGro(ts, cpu, payload, true);
    case FE::kNapiGroReceiveExitFieldNumber:
      return ParseNapiGro(ts, cpu, payload, false);
    default:
      return;
  }
}

// ---- block_io ---------------------------------------------------------------

uint32_t FtraceIoEvents::BlockDeviceTrack(uint64_t dev) {
  auto [it, inserted] = block_tracks_.try_emplace(dev, 0);
  if (!inserted) return it->second;
  uint32_t track = ctx_->track_tracker->CreateTrack(false, kNullStringId, block_io_, std::nullopt,
                                                    std::nullopt, std::nullopt);
  auto dims = ctx_->args_tracker->NewSet().AddInt("block_device", static_cast<int64_t>(dev));
  if (auto set = dims.Commit()) storage_->track.dimension_arg_set_id.Set(track, *set);
  it->second = track;
  return track;
}

void FtraceIoEvents::ParseBlockIo(int64_t ts, proto::Bytes payload, bool start) {
  // Both events share the field layout (dev = 1, sector = 2).
  static_assert(+pb::BlockIoStartFtraceEvent::kDevFieldNumber ==
                    +pb::BlockIoDoneFtraceEvent::kDevFieldNumber &&
                +pb::BlockIoStartFtraceEvent::kSectorFieldNumber ==
                    +pb::BlockIoDoneFtraceEvent::kSectorFieldNumber);
  using E = pb::BlockIoStartFtraceEvent;
  Flat m(payload);
  uint32_t track = BlockDeviceTrack(m[E::kDevFieldNumber].as_uint64());
  auto args = ctx_->args_tracker->NewSet().AddUint("sector", m[E::kSectorFieldNumber].as_uint64());
  if (start) {
    ctx_->slice_tracker->Begin(ts, track, kNullStringId, block_io_, std::move(args));
  } else {
    ctx_->slice_tracker->End(ts, track, kNullStringId, kNullStringId, std::move(args));
  }
}

// ---- android_fs -------------------------------------------------------------

void FtraceIoEvents::ParseAndroidFsStart(int64_t ts, uint32_t pid, proto::Bytes payload) {
  using E = pb::AndroidFsDatareadStartFtraceEvent;
  Flat m(payload);
  int64_t offset = m[E::kOffsetFieldNumber].as_int64();
  android_fs_reads_[{m[E::kInoFieldNumber].as_uint64(), offset}] = pid;
  uint32_t track = android_fs_tracks_.BeginTrack(pid, [this](uint32_t idx) {
    uint32_t t = ctx_->track_tracker->CreateTrack(false, android_fs_, android_fs_, std::nullopt,
                                                  std::nullopt, std::nullopt);
    auto dims = ctx_->args_tracker->NewSet().AddInt("track_compressor_idx", idx);
    if (auto set = dims.Commit()) storage_->track.dimension_arg_set_id.Set(t, *set);
    storage_->track.track_group_id.Set(
        t, android_fs_tracks_.GroupId([this] { return ctx_->track_tracker->NewTrackGroup(); }));
    return t;
  });
  auto args = ctx_->args_tracker->NewSet()
                  .AddString("file_path", m[E::kPathbufFieldNumber].as_string())
                  .AddInt("offset_start", offset)
                  .AddInt("bytes_read_start", m[E::kBytesFieldNumber].as_int32());
  ctx_->slice_tracker->Begin(ts, track, kNullStringId, android_fs_data_read_, std::move(args));
}

void FtraceIoEvents::ParseAndroidFsEnd(int64_t ts, proto::Bytes payload) {
  using E = pb::AndroidFsDatareadEndFtraceEvent;
  Flat m(payload);
  int64_t offset = m[E::kOffsetFieldNumber].as_int64();
  auto it = android_fs_reads_.find({m[E::kInoFieldNumber].as_uint64(), offset});
  if (it == android_fs_reads_.end()) return;  // its start is not in the trace
  uint32_t pid = it->second;
  android_fs_reads_.erase(it);
  std::optional<uint32_t> track = android_fs_tracks_.EndTrack(pid);
  if (!track) return;
  auto args = ctx_->args_tracker->NewSet()
                  .AddInt("offset_end", offset)
                  .AddInt("bytes_read_end", m[E::kBytesFieldNumber].as_int32());
  ctx_->slice_tracker->End(ts, *track, kNullStringId, kNullStringId, std::move(args));
}

// ---- napi_gro ---------------------------------------------------------------

void FtraceIoEvents::ParseNapiGro(int64_t ts, uint32_t cpu, proto::Bytes payload, bool entry) {
  char name[32];
  snprintf(name, sizeof name, "Napi Gro Cpu %u", cpu);
  uint32_t track = ctx_->track_tracker->InternCpuTrack(cpu, storage_->Intern(name), cpu_napi_gro_);
  Flat m(payload);
  if (entry) {
    using E = pb::NapiGroReceiveEntryFtraceEvent;
    auto args = ctx_->args_tracker->NewSet().AddInt("len", m[E::kLenFieldNumber].as_uint32());
    ctx_->slice_tracker->Begin(ts, track, napi_gro_,
                               storage_->Intern(m[E::kNameFieldNumber].as_string()),
                               std::move(args));
  } else {
    using E = pb::NapiGroReceiveExitFtraceEvent;
    auto args = ctx_->args_tracker->NewSet().AddInt("ret", m[E::kRetFieldNumber].as_int32());
    ctx_->slice_tracker->End(ts, track, napi_gro_, kNullStringId, std::move(args));
  }
}

}  // namespace fathom
