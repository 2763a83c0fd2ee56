#include "core/import/adreno_cmdbatch_tracker.h"

#include <algorithm>

#include "core/import/args_tracker.h"
#include "core/import/process_tracker.h"
#include "core/import/slice_tracker.h"
#include "core/import/track_tracker.h"
#include "perfetto/trace/ftrace/ftrace_event_bundle.pb.h"

namespace fathom {

namespace pb = perfetto::protos;

namespace {

using Flat = proto::FlatMessage<16>;

// GPU ticks (19.2 MHz always-on counter) to ns: 1e9 / 19.2e6 = 625 / 12,
// truncated toward zero as upstream does.
int64_t TicksToNs(int64_t ticks) {
  return static_cast<int64_t>(static_cast<__int128>(ticks) * 625 / 12);
}

}  // namespace

AdrenoCmdbatchTracker::AdrenoCmdbatchTracker(TraceContext* ctx)
    : ctx_(ctx), storage_(ctx->storage.get()) {}

bool AdrenoCmdbatchTracker::Handles(uint32_t event_id) {
  using FE = pb::FtraceEvent;
  return event_id == FE::kKgslAdrenoCmdbatchQueuedFieldNumber ||
         event_id == FE::kKgslAdrenoCmdbatchSyncFieldNumber ||
         event_id == FE::kKgslAdrenoCmdbatchRetiredFieldNumber;
}

void AdrenoCmdbatchTracker::Parse(int64_t ts, uint32_t pid, uint32_t event_id,
                                  proto::Bytes payload) {
  using FE = pb::FtraceEvent;
  Flat m(payload);
  if (event_id == FE::kKgslAdrenoCmdbatchQueuedFieldNumber) {
    using E = pb::KgslAdrenoCmdbatchQueuedFtraceEvent;
    uint32_t context = m[E::kIdFieldNumber].as_uint32();
    if (!context_utid_.count(context))
      context_utid_[context] = ctx_->process_tracker->GetOrCreateThread(pid);
  } else if (event_id == FE::kKgslAdrenoCmdbatchSyncFieldNumber) {
    using E = pb::KgslAdrenoCmdbatchSyncFtraceEvent;
    int64_t ticks = m[E::kTicksFieldNumber].as_int64();
    sync_offsets_[{m[E::kIdFieldNumber].as_uint32(), m[E::kTimestampFieldNumber].as_uint32()}] =
        ts - TicksToNs(ticks);
  } else {
    ParseRetired(payload);
  }
}

void AdrenoCmdbatchTracker::ParseRetired(proto::Bytes payload) {
  using E = pb::KgslAdrenoCmdbatchRetiredFtraceEvent;
  Flat m(payload);
  uint32_t context = m[E::kIdFieldNumber].as_uint32();
  auto sync = sync_offsets_.find({context, m[E::kTimestampFieldNumber].as_uint32()});
  if (sync == sync_offsets_.end()) return;  // no way to place it on the CPU clock
  int64_t offset = sync->second;
  sync_offsets_.erase(sync);
  int64_t start = m[E::kStartFieldNumber].as_int64();
  int64_t retire = m[E::kRetireFieldNumber].as_int64();
  if (retire < start) return;
  Batch batch{offset + TicksToNs(start),
              TicksToNs(retire - start),
              context,
              m[E::kPrioFieldNumber].as_int32(),
              {}};
  // Negative times are dropped, as upstream's sorter drops them.
  if (batch.ts < 0) return;
  auto queued = context_utid_.find(context);
  if (queued != context_utid_.end()) {
    if (auto upid = ctx_->process_tracker->GetUpidOfThread(queued->second)) {
      StringId name = storage_->process.name[*upid];
      if (name != kNullStringId) batch.process = storage_->GetString(name);
    }
  }
  batches_.push_back(std::move(batch));
}

void AdrenoCmdbatchTracker::Flush() {
  std::stable_sort(batches_.begin(), batches_.end(),
                   [](const Batch& a, const Batch& b) { return a.ts < b.ts; });
  StringId gpu = storage_->Intern("GPU");
  StringId type = storage_->Intern("adreno_gpu_cmdbatch");
  for (const Batch& b : batches_) {
    TrackCompressor& group = tracks_[{b.context, b.prio}];
    auto create = [&](uint32_t idx) {
      std::string name = "GPU";
      if (!b.process.empty()) name += " " + b.process;
      name += " (Ctx=" + std::to_string(b.context) + ", Prio=" + std::to_string(b.prio) + ")";
      uint32_t track = ctx_->track_tracker->CreateTrack(false, storage_->Intern(name), type,
                                                        std::nullopt, std::nullopt, std::nullopt);
      auto dims = ctx_->args_tracker->NewSet()
                      .AddInt("context_id", b.context)
                      .AddInt("prio", b.prio)
                      .AddInt("track_compressor_idx", idx);
      if (auto set = dims.Commit()) storage_->track.dimension_arg_set_id.Set(track, *set);
      storage_->track.track_group_id.Set(
          track, group.GroupId([this] { return ctx_->track_tracker->NewTrackGroup(); }));
      return track;
    };
    uint32_t track = group.CompleteTrack(b.ts, b.dur, create);
    ctx_->slice_tracker->Scoped(b.ts, track, kNullStringId, gpu, b.dur);
  }
  batches_.clear();
}

}  // namespace fathom
