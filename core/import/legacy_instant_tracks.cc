#include "core/import/legacy_instant_tracks.h"

#include "core/import/args_tracker.h"
#include "core/import/track_tracker.h"

namespace fathom {
namespace {

// A new track's source args (written once, after its dimensions).
uint32_t WithChromeSource(TraceContext* ctx, uint32_t track) {
  TraceStorage* s = ctx->storage.get();
  if (s->track.source_arg_set_id.IsNull(track)) {
    if (auto set = ctx->args_tracker->NewSet().AddString("source", "chrome").Commit())
      s->track.source_arg_set_id.Set(track, *set);
  }
  return track;
}

}  // namespace

uint32_t LegacyProcessInstantTrack(TraceContext* ctx, uint32_t upid) {
  StringId type = ctx->storage->Intern("chrome_process_instant");
  return WithChromeSource(ctx, ctx->track_tracker->InternProcessTrack(upid, kNullStringId, type));
}

uint32_t LegacyGlobalInstantTrack(TraceContext* ctx) {
  StringId type = ctx->storage->Intern("legacy_chrome_global_instants");
  return WithChromeSource(
      ctx, ctx->track_tracker->InternGlobalTrack(kNullStringId, type, 0, TrackDims().NoOwner()));
}

}  // namespace fathom
