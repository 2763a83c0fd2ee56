#include "core/import/ftrace_cma_tracker.h"

#include "core/import/args_tracker.h"
#include "core/import/process_tracker.h"
#include "core/import/slice_tracker.h"
#include "core/import/trace_context.h"
#include "core/import/track_tracker.h"
#include "perfetto/trace/ftrace/ftrace_event_bundle.pb.h"

namespace fathom {

namespace {

namespace pb = perfetto::protos;
using Flat = proto::FlatMessage<16>;

// Kernel versions that decide which event reports an allocation's outcome.
constexpr std::pair<int, int> kFirstWithCmaSlices{5, 10};
constexpr std::pair<int, int> kFirstEndingAtFinish{6, 1};

}  // namespace

CmaAllocTracker::CmaAllocTracker(TraceContext* ctx)
    : ctx_(ctx), slice_name_(ctx->storage->Intern("mm_cma_alloc")) {}

bool CmaAllocTracker::Handles(uint32_t event_id) {
  return event_id == pb::FtraceEvent::kCmaAllocStartFieldNumber ||
         event_id == pb::FtraceEvent::kCmaAllocInfoFieldNumber ||
         event_id == pb::FtraceEvent::kCmaAllocFinishFieldNumber ||
         event_id == pb::FtraceEvent::kMmAllocContigMigrateRangeInfoFieldNumber;
}

void CmaAllocTracker::OnEvent(uint32_t event_id, int64_t ts, uint32_t pid, proto::Bytes payload,
                              std::optional<std::pair<int, int>> kernel) {
  if (!kernel || *kernel < kFirstWithCmaSlices) return;
  const bool ends_at_finish = *kernel >= kFirstEndingAtFinish;
  switch (event_id) {
    case pb::FtraceEvent::kCmaAllocStartFieldNumber:
      return OnAllocStart(ts, pid);
    case pb::FtraceEvent::kCmaAllocInfoFieldNumber:
      if (!ends_at_finish) OnAllocInfo(ts, pid, payload);
      return;
    case pb::FtraceEvent::kMmAllocContigMigrateRangeInfoFieldNumber:
      if (ends_at_finish) OnMigrateRangeInfo(pid, payload);
      return;
    case pb::FtraceEvent::kCmaAllocFinishFieldNumber:
      if (ends_at_finish) OnAllocFinish(ts, pid, payload);
      return;
    default:
      return;
  }
}

uint32_t CmaAllocTracker::TrackOf(uint32_t pid) {
  uint32_t utid = ctx_->process_tracker->GetOrCreateThread(pid);
  return ctx_->track_tracker->InternThreadTrack(utid);
}

void CmaAllocTracker::OnAllocStart(int64_t ts, uint32_t pid) {
  migrate_by_pid_[pid] = MigrateCounts{};  // counters of an earlier allocation do not carry over
  ctx_->slice_tracker->Begin(ts, TrackOf(pid), kNullStringId, slice_name_);
}

void CmaAllocTracker::OnAllocInfo(int64_t ts, uint32_t pid, proto::Bytes payload) {
  using E = pb::CmaAllocInfoFtraceEvent;
  Flat m(payload);
  auto args = ctx_->args_tracker->NewSet();
  args.AddString("cma_name", m[E::kNameFieldNumber].as_string())
      .AddUint("cma_pfn", m[E::kPfnFieldNumber].as_uint64())
      .AddUint("cma_req_pages", m[E::kCountFieldNumber].as_uint64())
      .AddUint("cma_nr_migrated", m[E::kNrMigratedFieldNumber].as_uint64())
      .AddUint("cma_nr_reclaimed", m[E::kNrReclaimedFieldNumber].as_uint64())
      .AddUint("cma_nr_mapped", m[E::kNrMappedFieldNumber].as_uint64())
      .AddUint("cma_nr_isolate_fail", m[E::kErrIsoFieldNumber].as_uint64())
      .AddUint("cma_nr_migrate_fail", m[E::kErrMigFieldNumber].as_uint64())
      .AddUint("cma_nr_test_fail", m[E::kErrTestFieldNumber].as_uint64());
  migrate_by_pid_.erase(pid);
  ctx_->slice_tracker->End(ts, TrackOf(pid), kNullStringId, slice_name_, std::move(args));
}

void CmaAllocTracker::OnMigrateRangeInfo(uint32_t pid, proto::Bytes payload) {
  auto it = migrate_by_pid_.find(pid);
  if (it == migrate_by_pid_.end()) return;  // not inside an allocation
  using E = pb::MmAllocContigMigrateRangeInfoFtraceEvent;
  Flat m(payload);
  it->second.nr_migrated = m[E::kNrMigratedFieldNumber].as_uint64();
  it->second.nr_reclaimed = m[E::kNrReclaimedFieldNumber].as_uint64();
  it->second.nr_mapped = m[E::kNrMappedFieldNumber].as_uint64();
}

void CmaAllocTracker::OnAllocFinish(int64_t ts, uint32_t pid, proto::Bytes payload) {
  auto it = migrate_by_pid_.find(pid);
  if (it == migrate_by_pid_.end()) return;  // no allocation open on this thread
  MigrateCounts counts = it->second;
  migrate_by_pid_.erase(it);
  using E = pb::CmaAllocFinishFtraceEvent;
  Flat m(payload);
  auto args = ctx_->args_tracker->NewSet();
  args.AddString("cma_name", m[E::kNameFieldNumber].as_string())
      .AddUint("cma_pfn", m[E::kPfnFieldNumber].as_uint64())
      .AddUint("cma_req_pages", m[E::kCountFieldNumber].as_uint64())
      .AddUint("cma_nr_migrated", counts.nr_migrated)
      .AddUint("cma_nr_reclaimed", counts.nr_reclaimed)
      .AddUint("cma_nr_mapped", counts.nr_mapped);
  ctx_->slice_tracker->End(ts, TrackOf(pid), kNullStringId, slice_name_, std::move(args));
}

}  // namespace fathom
