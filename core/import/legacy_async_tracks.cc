#include "core/import/legacy_async_tracks.h"

#include "core/import/args_tracker.h"
#include "core/import/track_tracker.h"

namespace fathom {

LegacyAsyncTracks::LegacyAsyncTracks(TraceContext* ctx)
    : ctx_(ctx),
      global_type_(ctx->storage->Intern("legacy_async_global_slice")),
      process_type_(ctx->storage->Intern("legacy_async_process_slice")) {}

TrackCompressor::Factory LegacyAsyncTracks::Factory(Group* group, const GroupKey& key,
                                                    uint32_t upid, StringId name) {
  return [this, group, key, upid, name](uint32_t idx) {
    auto [process_scoped, group_upid, scope, root_name] = key;
    TraceStorage* s = ctx_->storage.get();
    TrackTracker* tt = ctx_->track_tracker.get();
    std::optional<uint32_t> owner;
    if (process_scoped) owner = group_upid;
    uint32_t track = tt->CreateTrack(false, name, process_scoped ? process_type_ : global_type_,
                                     std::nullopt, owner, std::nullopt);
    auto dims = ctx_->args_tracker->NewSet();
    if (process_scoped) dims.AddInt("upid", group_upid);
    dims.AddString("scope", scope).AddString("name", root_name).AddInt("track_compressor_idx", idx);
    if (auto set = dims.Commit()) s->track.dimension_arg_set_id.Set(track, *set);
    auto source = ctx_->args_tracker->NewSet()
                      .AddString("source", "chrome")
                      .AddBool("trace_id_is_process_scoped", process_scoped)
                      .AddUint("upid", upid)
                      .AddString("source_scope", scope);
    if (auto set = source.Commit()) s->track.source_arg_set_id.Set(track, *set);
    s->track.track_group_id.Set(track, group->tracks.GroupId([tt] { return tt->NewTrackGroup(); }));
    return track;
  };
}

uint32_t LegacyAsyncTracks::Track(const Event& e) {
  std::string key = e.process_scoped ? std::to_string(e.upid) : std::string("g");
  key += '\0';
  key += e.trace_id;
  auto [it, inserted] = ids_.try_emplace(key, Id{static_cast<int64_t>(ids_.size()) + 1, e.name});
  const Id& id = it->second;
  GroupKey group_key{e.process_scoped, e.process_scoped ? e.upid : 0, e.scope, id.root_name};
  Group& group = groups_[group_key];
  TrackCompressor::Factory create = Factory(&group, group_key, e.upid, e.name);
  switch (e.kind) {
    case Kind::kBegin:
      return group.tracks.BeginNestable(id.cookie, create);
    case Kind::kEnd:
      return group.tracks.EndNestable(id.cookie, create);
    case Kind::kInstant:
      group.tracks.BeginNestable(id.cookie, create);
      return group.tracks.EndNestable(id.cookie, create);
  }
  return 0;
}

}  // namespace fathom
