#include "core/import/atrace_async_tracks.h"

#include "core/import/args_tracker.h"
#include "core/import/slice_tracker.h"
#include "core/import/track_tracker.h"

namespace fathom {

AtraceAsyncTracks::AtraceAsyncTracks(TraceContext* ctx)
    : ctx_(ctx), type_(ctx->storage->Intern("atrace_async_slice")) {}

AtraceAsyncTracks::Group& AtraceAsyncTracks::GroupOf(uint32_t upid, StringId name) {
  return groups_[(uint64_t{upid} << 32) | name];
}

TrackCompressor::Factory AtraceAsyncTracks::Factory(Group* group, uint32_t upid, StringId name,
                                                    std::string_view name_text) {
  return [this, group, upid, name, name_text](uint32_t idx) {
    // The index joins the interning key so each track of the group is its own.
    TrackTracker* tt = ctx_->track_tracker.get();
    uint32_t track =
        tt->InternProcessTrack(upid, name, type_, idx,
                               TrackDims().Str("name", name_text).Int("track_compressor_idx", idx));
    if (!group->track_group_id) group->track_group_id = tt->NewTrackGroup();
    ctx_->storage->track.track_group_id.Set(track, *group->track_group_id);
    return track;
  };
}

void AtraceAsyncTracks::Begin(int64_t ts, uint32_t upid, std::string_view name_text,
                              int64_t cookie) {
  StringId name = ctx_->storage->Intern(name_text);
  Group& group = GroupOf(upid, name);
  uint32_t track = group.tracks.BeginUnnestable(cookie, Factory(&group, upid, name, name_text));
  // Upstream counts every begin on the track, across its slices.
  Begins& b = begins_[track];
  ++b.count;
  b.last_ts = ts;
  SliceTracker* st = ctx_->slice_tracker.get();
  if (st->GetTopmostOpen(track)) return;  // a repeated begin of an open cookie
  st->Begin(ts, track, kNullStringId, name, ctx_->args_tracker->NewSet().AddInt("cookie", cookie));
}

void AtraceAsyncTracks::End(int64_t ts, uint32_t upid, std::string_view name_text, int64_t cookie) {
  StringId name = ctx_->storage->Intern(name_text);
  Group& group = GroupOf(upid, name);
  uint32_t track = group.tracks.EndUnnestable(cookie, Factory(&group, upid, name, name_text));
  SliceTracker* st = ctx_->slice_tracker.get();
  if (!st->GetTopmostOpen(track)) return;
  const Begins& b = begins_[track];
  st->End(ts, track, kNullStringId, kNullStringId,
          ctx_->args_tracker->NewSet()
              .AddInt("legacy_unnestable_begin_count", b.count)
              .AddInt("legacy_unnestable_last_begin_ts", b.last_ts));
}

}  // namespace fathom
