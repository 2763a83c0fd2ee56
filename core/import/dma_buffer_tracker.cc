#include "core/import/dma_buffer_tracker.h"

#include <string>

#include "core/import/slice_tracker.h"
#include "core/import/trace_context.h"
#include "core/import/track_tracker.h"

namespace fathom {

DmaBufferTracker::DmaBufferTracker(TraceContext* ctx)
    : ctx_(ctx),
      track_name_(ctx->storage->Intern("mem.dma_buffer")),
      track_type_(ctx->storage->Intern("android_dma_allocations")) {}

uint32_t DmaBufferTracker::TrackAt(uint32_t index) {
  // Upstream compresses these tracks: each has its index as a dimension and
  // all are one track group, numbered when the first is made.
  TrackTracker* tt = ctx_->track_tracker.get();
  uint32_t track = tt->InternGlobalTrack(track_name_, track_type_, index,
                                         TrackDims().Int("track_compressor_idx", index));
  TraceStorage* s = ctx_->storage.get();
  if (s->track.track_group_id.IsNull(track)) {
    if (!track_group_id_) track_group_id_ = tt->NewTrackGroup();
    s->track.track_group_id.Set(track, *track_group_id_);
  }
  return track;
}

void DmaBufferTracker::OnHeapStat(int64_t ts, uint64_t inode, int64_t len) {
  if (len > 0) {
    auto [it, is_new] = open_.try_emplace(inode);
    if (is_new) {
      uint32_t index = 0;
      while (index < track_busy_.size() && track_busy_[index]) ++index;
      if (index == track_busy_.size()) track_busy_.push_back(false);
      track_busy_[index] = true;
      it->second.track_index = index;
    }
    ++it->second.depth;
    std::string name = std::to_string(len / 1024) + " kB";
    ctx_->slice_tracker->Begin(ts, TrackAt(it->second.track_index), kNullStringId,
                               ctx_->storage->Intern(name));
    return;
  }
  if (len == 0) return;
  auto it = open_.find(inode);
  if (it == open_.end()) return;  // freed before the trace began
  ctx_->slice_tracker->End(ts, TrackAt(it->second.track_index));
  if (--it->second.depth == 0) {
    track_busy_[it->second.track_index] = false;
    open_.erase(it);
  }
}

}  // namespace fathom
