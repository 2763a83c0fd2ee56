#include "core/import/track_event_tracks.h"

#include "core/import/args_tracker.h"
#include "core/import/legacy_instant_tracks.h"
#include "core/import/parse_problems.h"
#include "core/import/process_tracker.h"
#include "core/import/slice_tracker.h"
#include "core/import/track_tracker.h"
#include "core/import/translation_table.h"

namespace fathom {

TrackEventTracker::TrackEventTracker(TraceContext* ctx) : ctx_(ctx), async_tracks_(ctx) {}

void TrackEventTracker::Reserve(uint64_t uuid, const TrackReservation& r) {
  auto [it, inserted] = reservations_.emplace(uuid, r);
  if (inserted) return;
  if (!it->second.SameKind(r)) {
    // A uuid must keep describing the same thread/process/parent.
    ctx_->storage->stats.Increment(Stat::kTrackEventTokenizerErrors);
    return;
  }
  TrackReservation& kept = it->second;
  kept.last_name_wins |= r.last_name_wins;
  kept.is_state |= r.is_state;
  if (r.name != kNullStringId && (kept.name == kNullStringId || kept.last_name_wins))
    kept.name = r.name;
  if (kept.description == kNullStringId) kept.description = r.description;
  if (!kept.child_ordering) kept.child_ordering = r.child_ordering;
  if (!kept.sibling_order_rank) kept.sibling_order_rank = r.sibling_order_rank;
  if (!kept.merge_behavior) kept.merge_behavior = r.merge_behavior;
  if (kept.merge_key == kNullStringId) kept.merge_key = r.merge_key;
}

void TrackEventTracker::OnDescriptorParsed(uint64_t uuid) {
  auto it = tracks_.find(uuid);
  if (it == tracks_.end()) return;
  const TrackReservation& r = reservations_.at(uuid);
  if (r.name == kNullStringId || r.pid || r.tid) return;
  ctx_->storage->track.name.Set(it->second, ShownName(uuid, r.name));
}

void TrackEventTracker::OnScopeDescriptorResolved(uint64_t uuid) {
  const TrackReservation& r = reservations_.at(uuid);
  if (r.sibling_order_rank && (r.pid || r.tid)) scope_descriptors_.push_back(uuid);
}

void TrackEventTracker::ApplySortIndexHints() {
  TraceStorage* s = ctx_->storage.get();
  std::unordered_set<uint64_t> done;
  for (uint64_t uuid : scope_descriptors_) {
    if (!done.insert(uuid).second) continue;
    const TrackReservation& r = reservations_.at(uuid);
    const Resolved& res = resolved_.at(uuid);
    auto args = ctx_->args_tracker->NewSet();
    if (res.scope == Resolved::kThread && explicit_thread_order_) {
      args.AddInt("thread_sort_index_hint", *r.sibling_order_rank);
      if (auto set = args.CommitMerged(s->thread.arg_set_id.Get(res.utid)))
        s->thread.arg_set_id.Set(res.utid, *set);
    } else if (res.scope == Resolved::kProcess && explicit_process_order_) {
      args.AddInt("process_sort_index_hint", *r.sibling_order_rank);
      if (auto set = args.CommitMerged(s->process.arg_set_id.Get(res.upid)))
        s->process.arg_set_id.Set(res.upid, *set);
    }
  }
}

const TrackReservation* TrackEventTracker::GetReservation(uint64_t uuid) const {
  auto it = reservations_.find(uuid);
  return it == reservations_.end() ? nullptr : &it->second;
}

std::optional<TrackEventTracker::Resolved> TrackEventTracker::Resolve(uint64_t uuid) {
  if (auto it = resolved_.find(uuid); it != resolved_.end()) return it->second;
  if (!reservations_.count(uuid)) return std::nullopt;
  // Walk the parent_uuid chain up to a resolved ancestor or a root, without
  // recursion: the chain's length and shape come from the file. As upstream,
  // every descriptor's chain is checked, thread and process ones included.
  std::vector<uint64_t> chain;
  std::unordered_set<uint64_t> seen;
  HierarchyError error = HierarchyError::kNone;
  for (uint64_t cur = uuid;;) {
    if (resolved_.count(cur)) break;
    if (auto f = broken_.find(cur); f != broken_.end()) {
      error = f->second;
      break;
    }
    auto rit = reservations_.find(cur);
    if (rit == reservations_.end()) {
      error = HierarchyError::kMissingParent;
      break;
    }
    if (!seen.insert(cur).second) {
      error = HierarchyError::kLoop;
      break;
    }
    chain.push_back(cur);
    if (rit->second.parent_uuid == 0) break;
    cur = rit->second.parent_uuid;
  }
  if (error != HierarchyError::kNone) {
    for (uint64_t u : chain) broken_[u] = error;
    CountHierarchyError(error);
    return std::nullopt;
  }
  // Ancestors first: a child track lives in its parent's scope.
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) resolved_[*it] = ResolveOne(*it);
  return resolved_.at(uuid);
}

void TrackEventTracker::CountHierarchyError(HierarchyError error) {
  Stats& stats = ctx_->storage->stats;
  if (error == HierarchyError::kLoop) stats.Increment(Stat::kTrackHierarchyLoop);
  if (error == HierarchyError::kMissingParent) stats.Increment(Stat::kTrackHierarchyMissingUuid);
  if (reported_hierarchy_errors_++ == 0)
    AddParseProblem(ctx_, "track_hierarchy", std::nullopt,
                    error == HierarchyError::kLoop
                        ? "a track descriptor is its own ancestor through parent_uuid: its "
                          "track and events were dropped (stat track_event_track_hierarchy_loop)"
                        : "a track descriptor names a parent_uuid no descriptor has: its track "
                          "and events were dropped (stat track_hierarchy_missing_uuid)");
}

// One descriptor whose ancestors are all resolved already.
TrackEventTracker::Resolved TrackEventTracker::ResolveOne(uint64_t uuid) {
  const TrackReservation r = reservations_.at(uuid);
  ProcessTracker* procs = ctx_->process_tracker.get();
  Resolved res;
  res.is_counter = r.is_counter;
  res.use_separate_track = r.use_separate_track;
  if (r.tid) {
    uint32_t utid = procs->UpdateThread(*r.tid, r.pid.value_or(0));
    auto [it, inserted] = uuid_by_utid_.emplace(utid, uuid);
    if (!inserted && it->second != uuid) {
      // Another descriptor already owns this live thread: the tid was reused.
      // The new thread is not recorded as this descriptor's (as upstream): the
      // next descriptor of the tid takes it over rather than starting another.
      utid = procs->StartNewThread(std::nullopt, *r.tid);
      utid = procs->UpdateThread(*r.tid, r.pid.value_or(0));
    }
    res.scope = Resolved::kThread;
    res.utid = utid;
    res.is_root = true;
  } else if (r.pid) {
    uint32_t upid = procs->GetOrCreateProcess(*r.pid);
    auto [it, inserted] = uuid_by_upid_.emplace(upid, uuid);
    if (!inserted && it->second != uuid) {
      // Same for a reused pid (and, as upstream, the new process is not
      // recorded as this descriptor's either).
      upid = procs->StartNewProcess(std::nullopt, std::nullopt, *r.pid, kNullStringId,
                                    ThreadNamePriority::kTrackDescriptor);
    }
    res.scope = Resolved::kProcess;
    res.upid = upid;
    res.is_root = true;
  } else if (r.parent_uuid) {
    // Child tracks live in the scope of their parent.
    const Resolved& parent = resolved_.at(r.parent_uuid);
    res.scope = parent.scope;
    res.utid = parent.utid;
    res.upid = parent.upid;
  }
  return res;
}

uint32_t TrackEventTracker::CreateTrack(uint64_t uuid, const TrackReservation& r,
                                        const Resolved& res) {
  TrackTracker* tt = ctx_->track_tracker.get();
  std::optional<uint32_t> utid, upid;
  if (res.scope == Resolved::kThread) utid = res.utid;
  if (res.scope == Resolved::kProcess) upid = res.upid;
  if (res.is_root && !r.is_counter) {
    if (res.scope == Resolved::kThread) {
      // The thread's primary track is shared with ftrace/atrace slices unless
      // the producer asked to keep them apart.
      if (!res.use_separate_track) return ThreadTrack(res.utid);
      auto it = separate_thread_tracks_.find(res.utid);
      if (it != separate_thread_tracks_.end()) return it->second;
      uint32_t id =
          tt->CreateTrack(false, kNullStringId, kNullStringId, utid, std::nullopt, std::nullopt);
      separate_thread_tracks_[res.utid] = id;
      return id;
    }
    // Its own track, told apart by its uuid (a dimension).
    return tt->CreateTrack(false, kNullStringId, kNullStringId, std::nullopt, upid, std::nullopt);
  }
  uint32_t id =
      tt->CreateTrack(r.is_counter, kNullStringId, kNullStringId, utid, upid, std::nullopt);
  if (r.is_counter && r.unit != kNullStringId) ctx_->storage->track.counter_unit.Set(id, r.unit);
  if (r.is_state) ctx_->storage->track.event_type.Set(id, ctx_->storage->Intern("state"));
  return id;
}

std::optional<uint32_t> TrackEventTracker::GetDescriptorTrack(uint64_t uuid, StringId event_name,
                                                              int64_t ts, uint32_t sequence_id) {
  auto it = tracks_.find(uuid);
  if (it == tracks_.end()) {
    if (!Resolve(uuid)) return std::nullopt;
    // A resolved chain has no loop. Create the missing ancestors first, so
    // parents get smaller ids than children, iteratively (chains may be long).
    std::vector<uint64_t> missing{uuid};
    for (uint64_t p = reservations_.at(uuid).parent_uuid; p && !tracks_.count(p);
         p = reservations_.at(p).parent_uuid)
      missing.push_back(p);
    for (auto m = missing.rbegin(); m != missing.rend(); ++m)
      CreateDescriptorTrack(*m, sequence_id, *m == uuid ? event_name : kNullStringId, ts);
    it = tracks_.find(uuid);
  }
  uint32_t id = MoveOffBusyTrack(uuid, it->second, sequence_id, ts);
  if (event_name != kNullStringId && ctx_->storage->track.name[id] == kNullStringId) {
    // Unnamed plain tracks are named after their first event, except one
    // merged with no name to merge by (made before any event, e.g. as a
    // parent): upstream leaves it nameless.
    // A track of a group merged by name takes the group's name, the one its
    // first track was named after (a track opened when the uuid moved off a
    // busy one is so named whatever the event moving it is called).
    const TrackReservation& r = reservations_.at(uuid);
    StringId name = event_name;
    if (auto key = merged_keys_.find(uuid); key != merged_keys_.end() &&
                                            std::get<1>(key->second) == 0 &&
                                            std::get<2>(key->second) != kNullStringId)
      name = std::get<2>(key->second);
    if (!r.pid && !r.tid && !r.is_counter && !nameless_merged_.count(uuid))
      ctx_->storage->track.name.Set(id, ShownName(uuid, name));
  }
  return id;
}

// The track row of a resolved descriptor whose parent's track exists.
void TrackEventTracker::CreateDescriptorTrack(uint64_t uuid, uint32_t sequence_id,
                                              StringId event_name, int64_t ts) {
  const TrackReservation r = reservations_.at(uuid);
  const Resolved& res = resolved_.at(uuid);
  // A uuid moving off a busy track keeps the group it joined first.
  auto known = merged_keys_.find(uuid);
  const std::optional<MergeKey> key =
      known != merged_keys_.end() ? known->second : MergeKeyOf(uuid, r, res, event_name);
  if (key) {
    merged_keys_.emplace(uuid, *key);
    // Made with no value to merge by and no event to name it: upstream leaves
    // it nameless; made at an event, it is named after it as any track.
    if (std::get<2>(*key) == kNullStringId && event_name == kNullStringId)
      nameless_merged_.insert(uuid);
    // A sibling of the same group whose track is idle now shares it (upstream
    // only opens another track of the group when the others are in use).
    for (uint32_t shared : group_tracks_[*key]) {
      if (TrackBusy(shared, ts)) continue;
      tracks_[uuid] = shared;
      track_users_[shared] = uuid;
      return;
    }
  }
  uint32_t id = CreateTrack(uuid, r, res);
  tracks_[uuid] = id;
  track_users_[id] = uuid;
  ClassifyTrack(id, r, res, key);
  // A thread's own descriptor track is the thread's track, shared with other
  // sources: it has the thread's dimension only, and no descriptor args.
  const bool thread_track =
      res.is_root && res.scope == Resolved::kThread && !r.is_counter && !res.use_separate_track;
  if (!thread_track) CommitDimensions(id, uuid, res, key);
  if (key) group_tracks_[*key].push_back(id);
  TrackTable& tracks = ctx_->storage->track;
  // A child of a thread's or process's own track is tied to it by its
  // utid/upid, not by parent_id (as upstream).
  if (r.parent_uuid && !resolved_.at(r.parent_uuid).is_root)
    tracks.parent_id.Set(id, tracks_.at(r.parent_uuid));
  if (r.name != kNullStringId) tracks.name.Set(id, ShownName(uuid, r.name));
  if (thread_track) return;
  auto args = ctx_->args_tracker->NewSet();
  args.AddString("source", "descriptor");
  args.AddInt("trace_id", static_cast<int64_t>(uuid));
  args.AddBool("is_root_in_scope", res.is_root);
  if (r.category != kNullStringId) args.AddString("category", r.category);
  if (first_packet_sequences_.count(sequence_id))
    args.AddBool("has_first_packet_on_sequence", true);
  if (r.description != kNullStringId) args.AddString("description", r.description);
  if (r.child_ordering) {
    static constexpr const char* kOrderings[] = {nullptr, "lexicographic", "chronological",
                                                 "explicit"};
    if (*r.child_ordering > 0 && *r.child_ordering < 4)
      args.AddString("child_ordering", kOrderings[*r.child_ordering]);
  }
  if (r.sibling_order_rank) args.AddInt("sibling_order_rank", *r.sibling_order_rank);
  if (auto set = args.Commit()) tracks.source_arg_set_id.Set(id, *set);
}

// Upstream's dimensions of a descriptor track, written before its source
// args: its scope's owner, then either its uuid or, for a track merged with
// its siblings, the merge key and its index among the group's tracks.
void TrackEventTracker::CommitDimensions(uint32_t id, uint64_t uuid, const Resolved& res,
                                         const std::optional<MergeKey>& key) {
  auto dims = ctx_->args_tracker->NewSet();
  if (res.scope == Resolved::kThread) dims.AddInt("utid", res.utid);
  if (res.scope == Resolved::kProcess) dims.AddInt("upid", res.upid);
  const auto& [parent, type, value] = key ? *key : MergeKey{};
  if (key) {
    dims.AddInt("parent_track_uuid", static_cast<int64_t>(parent));
    dims.AddInt("merge_key_type", type);
    dims.AddString("merge_key_value", value);  // NULL for a nameless track, as upstream
    dims.AddInt("track_compressor_idx", static_cast<int64_t>(group_tracks_[*key].size()));
  } else {
    dims.AddInt("track_uuid", static_cast<int64_t>(uuid));
  }
  if (auto set = dims.Commit()) ctx_->storage->track.dimension_arg_set_id.Set(id, *set);
}

std::optional<TrackEventTracker::MergeKey> TrackEventTracker::MergeKeyOf(
    uint64_t uuid, const TrackReservation& r, const Resolved& res, StringId event_name) const {
  constexpr int64_t kMergeNone = 2, kMergeByKey = 3;  // TrackDescriptor.SiblingMergeBehavior
  // Counter and state tracks are never merged with their siblings.
  if (res.is_root || r.is_counter || r.is_state || r.merge_behavior == kMergeNone)
    return std::nullopt;
  // By name: the first named descriptor's, else the first event's.
  const bool by_key = r.merge_behavior == kMergeByKey;
  const StringId value = by_key ? r.merge_key : r.name != kNullStringId ? r.name : event_name;
  // Without a name or key the track still joins its siblings' nameless group
  // (upstream keys the group by the NULL value too).
  return MergeKey{r.parent_uuid, by_key ? 2 : 0, value};
}

// Upstream places each event of a merged uuid anew: while the uuid's track
// holds another uuid's unfinished slices, the event goes to an idle track of
// the group, else to a new one (even an end with nothing to close), and the
// uuid stays there.
uint32_t TrackEventTracker::MoveOffBusyTrack(uint64_t uuid, uint32_t track, uint32_t sequence_id,
                                             int64_t ts) {
  if (!merged_keys_.count(uuid)) return track;
  uint64_t& user = track_users_[track];
  if (user == uuid || !TrackBusy(track, ts)) {
    user = uuid;
    return track;
  }
  tracks_.erase(uuid);
  CreateDescriptorTrack(uuid, sequence_id, kNullStringId, ts);
  return tracks_.at(uuid);
}

bool TrackEventTracker::TrackBusy(uint32_t track, int64_t ts) const {
  std::optional<uint32_t> open = ctx_->slice_tracker->GetTopmostOpen(track);
  if (!open) return false;
  // The outermost open slice says how long the stack lasts: unfinished
  // (dur -1) or ending after `ts`.
  const SliceTable& slices = ctx_->storage->slice;
  uint32_t root = *open;
  for (auto p = slices.parent_id.Get(root); p && *p < root; p = slices.parent_id.Get(root))
    root = *p;
  const int64_t dur = slices.dur[root];
  return dur < 0 || slices.ts[root] + dur > ts;
}

void TrackEventTracker::ClassifyTrack(uint32_t id, const TrackReservation& r, const Resolved& res,
                                      const std::optional<MergeKey>& key) {
  TrackTable& tracks = ctx_->storage->track;
  // A thread's own track shared with system events keeps its type.
  if (tracks.type[id] != kNullStringId) return;
  std::string type = res.scope == Resolved::kThread    ? "thread"
                     : res.scope == Resolved::kProcess ? "process"
                                                       : "global";
  if (r.is_counter) {
    type += "_counter_track_event";
  } else if (r.is_state) {
    type += "_state_track_event";
  } else if (!key) {
    type += "_track_event";
  } else {
    type += "_merged_track_event";
    tracks.track_group_id.Set(id, TrackGroup(*key));
  }
  tracks.type.Set(id, ctx_->storage->Intern(type));
}

uint32_t TrackEventTracker::TrackGroup(const MergeKey& key) {
  // Upstream numbers groups densely in the order their first track appears.
  auto it = groups_.find(key);
  if (it == groups_.end()) it = groups_.emplace(key, ctx_->track_tracker->NewTrackGroup()).first;
  return it->second;
}

uint32_t TrackEventTracker::ThreadTrack(uint32_t utid) {
  // Its utid dimension comes with it (TrackTracker).
  return ctx_->track_tracker->InternThreadTrack(utid);
}

StringId TrackEventTracker::ShownName(uint64_t uuid, StringId name) const {
  // translation_table.process_track_name renames the tracks of processes
  // (explicitly named or named after their first event), nothing else.
  auto it = resolved_.find(uuid);
  if (it == resolved_.end() || it->second.scope != Resolved::kProcess) return name;
  return ctx_->translation_table->ProcessTrackName(name);
}

uint32_t TrackEventTracker::DefaultTrack() {
  if (!default_track_) {
    default_track_ =
        ctx_->track_tracker->CreateTrack(false, ctx_->storage->Intern("Default Track"),
                                         kNullStringId, std::nullopt, std::nullopt, std::nullopt);
    // Upstream treats the default track as a descriptor track with uuid 0,
    // merged by its name; its args say so.
    TrackTable& tracks = ctx_->storage->track;
    auto dims = ctx_->args_tracker->NewSet();
    dims.AddInt("parent_track_uuid", 0);
    dims.AddInt("merge_key_type", 0);
    dims.AddString("merge_key_value", "Default Track");
    dims.AddInt("track_compressor_idx", 0);
    if (auto set = dims.Commit()) tracks.dimension_arg_set_id.Set(*default_track_, *set);
    auto source = ctx_->args_tracker->NewSet();
    source.AddString("source", "descriptor");
    source.AddInt("trace_id", 0);
    source.AddBool("is_root_in_scope", true);
    if (auto set = source.Commit()) tracks.source_arg_set_id.Set(*default_track_, *set);
    tracks.type.Set(*default_track_, ctx_->storage->Intern("global_merged_track_event"));
    tracks.track_group_id.Set(*default_track_,
                              TrackGroup({0, 0, ctx_->storage->Intern("Default Track")}));
  }
  return *default_track_;
}

uint32_t TrackEventTracker::LegacyAsyncTrack(LegacyAsyncTracks::Kind kind, StringId name,
                                             uint32_t upid, bool process_scoped, uint64_t source_id,
                                             StringId category, StringId id_scope) {
  TraceStorage* s = ctx_->storage.get();
  StringId scope = category;
  if (id_scope != kNullStringId) {
    std::string text(category != kNullStringId ? s->GetString(category) : "");
    text += ':';
    text += s->GetString(id_scope);
    scope = s->Intern(text);
  }
  const std::string trace_id = std::to_string(source_id);
  return async_tracks_.Track({kind, upid, name, scope, trace_id, process_scoped});
}

uint32_t TrackEventTracker::LegacyProcessInstantTrack(uint32_t upid) {
  return fathom::LegacyProcessInstantTrack(ctx_, upid);
}

uint32_t TrackEventTracker::LegacyGlobalInstantTrack() {
  return fathom::LegacyGlobalInstantTrack(ctx_);
}

}  // namespace fathom
