#include "core/import/track_tracker.h"

namespace fathom {

TrackTracker::TrackTracker(TraceStorage* storage, ArgsTracker* args)
    : storage_(storage), args_(args) {
  slice_ = storage->Intern("slice");
  counter_ = storage->Intern("counter");
}

uint32_t TrackTracker::CreateTrack(bool counter, StringId name, StringId type,
                                   std::optional<uint32_t> utid, std::optional<uint32_t> upid,
                                   std::optional<uint32_t> cpu) {
  return storage_->track.Insert(name, type, counter ? counter_ : slice_, utid, upid, cpu);
}

void TrackTracker::CommitDims(uint32_t track, const char* owner_key, std::optional<uint32_t> owner,
                              const TrackDims& dims) {
  if (!dims.owner_) return;
  auto set = args_->NewSet();
  if (owner) set.AddInt(owner_key, *owner);
  for (uint8_t i = 0; i < dims.n_; ++i) {
    const TrackDims::Dim& d = dims.dims_[i];
    if (d.str) {
      set.AddString(d.key, d.s);
    } else {
      set.AddInt(d.key, d.i);
    }
  }
  if (auto id = set.Commit()) storage_->track.dimension_arg_set_id.Set(track, *id);
}

uint32_t TrackTracker::Intern(const Key& key, const TrackDims& dims, StringId unit) {
  size_t h = KeyHash()(key);
  CacheSlot& slot = cache_[(h >> 7) & (kCacheSize - 1)];
  if (slot.used && slot.key == key) return slot.id;
  auto it = tracks_.find(key);
  if (it != tracks_.end()) {
    slot = {key, it->second, true};
    return it->second;
  }
  auto [counter, owner, owner_id, name, type, cookie] = key;
  std::optional<uint32_t> utid, upid, cpu;
  if (owner == kThread) utid = owner_id;
  if (owner == kProcess) upid = owner_id;
  if (owner == kCpu) cpu = owner_id;
  uint32_t id = CreateTrack(counter, name, type, utid, upid, cpu);
  if (unit != kNullStringId) storage_->track.counter_unit.Set(id, unit);
  // Cpu numbers repeat across machines: the cookie says whose cpu it is.
  if (owner == kCpu) storage_->track.machine_id.Set(id, static_cast<uint32_t>(cookie));
  const char* owner_key = owner == kThread ? "utid" : owner == kProcess ? "upid" : "cpu";
  std::optional<uint32_t> owner_value;
  if (owner != kGlobal) owner_value = owner_id;
  CommitDims(id, owner_key, owner_value, dims);
  tracks_.emplace(key, id);
  slot = {key, id, true};
  return id;
}

uint32_t TrackTracker::InternThreadTrack(uint32_t utid) {
  if (utid < thread_tracks_.size() && thread_tracks_[utid]) return thread_tracks_[utid] - 1;
  uint32_t id = CreateTrack(false, kNullStringId, storage_->Intern("thread_execution"), utid,
                            std::nullopt, std::nullopt);
  CommitDims(id, "utid", utid, {});
  if (utid >= thread_tracks_.size()) thread_tracks_.resize(utid + 1, 0);
  thread_tracks_[utid] = id + 1;
  return id;
}

uint32_t TrackTracker::InternProcessTrack(uint32_t upid, StringId name, StringId type,
                                          int64_t cookie, const TrackDims& dims) {
  return Intern(Key{0, kProcess, upid, name, type, cookie}, dims);
}
uint32_t TrackTracker::InternGlobalTrack(StringId name, StringId type, int64_t cookie,
                                         const TrackDims& dims) {
  return Intern(Key{0, kGlobal, 0, name, type, cookie}, dims);
}
uint32_t TrackTracker::InternCpuTrack(uint32_t cpu, StringId name, StringId type, uint32_t machine,
                                      const TrackDims& dims) {
  return Intern(Key{0, kCpu, cpu, name, type, machine}, dims);
}
uint32_t TrackTracker::InternGlobalCounterTrack(StringId name, StringId type, StringId unit,
                                                const TrackDims& dims) {
  return Intern(Key{1, kGlobal, 0, name, type, 0}, dims, unit);
}
uint32_t TrackTracker::InternCpuCounterTrack(uint32_t cpu, StringId name, StringId type,
                                             uint32_t machine, const TrackDims& dims) {
  return Intern(Key{1, kCpu, cpu, name, type, machine}, dims);
}
uint32_t TrackTracker::InternProcessCounterTrack(uint32_t upid, StringId name, StringId type,
                                                 const TrackDims& dims) {
  return Intern(Key{1, kProcess, upid, name, type, 0}, dims);
}
uint32_t TrackTracker::InternThreadCounterTrack(uint32_t utid, StringId name, StringId type,
                                                const TrackDims& dims) {
  return Intern(Key{1, kThread, utid, name, type, 0}, dims);
}

}  // namespace fathom
