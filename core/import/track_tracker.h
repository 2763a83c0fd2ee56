// Finds or creates the track rows events land on. One interned track per
// (kind, name, owner) so repeated events reuse it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "core/import/args_tracker.h"
#include "core/storage/trace_storage.h"

namespace fathom {

// A track's dimensions after its owner (upstream's track blueprints list the
// owner, utid / upid / cpu, first, then keys such as meminfo_key or name).
// Upstream writes them as an arg set when the track is created, so they take
// an arg set id in creation order, between the sets of the events.
class TrackDims {
 public:
  TrackDims& Str(const char* key, std::string_view v) {
    dims_[n_++] = {key, 0, v, true};
    return *this;
  }
  TrackDims& Int(const char* key, int64_t v) {
    dims_[n_++] = {key, v, {}, false};
    return *this;
  }
  // Owner tracks get no dimension set at all (the few kinds upstream
  // creates without one).
  TrackDims& NoOwner() {
    owner_ = false;
    return *this;
  }

 private:
  friend class TrackTracker;
  struct Dim {
    const char* key;
    int64_t i;
    std::string_view s;
    bool str;
  };
  Dim dims_[3];
  uint8_t n_ = 0;
  bool owner_ = true;
};

class TrackTracker {
 public:
  TrackTracker(TraceStorage* storage, ArgsTracker* args);

  // Slice tracks.
  uint32_t InternThreadTrack(uint32_t utid);
  // Async/named slice track of a process (atrace S/F, G/H, N; TrackEvent).
  uint32_t InternProcessTrack(uint32_t upid, StringId name, StringId type = kNullStringId,
                              int64_t cookie = 0, const TrackDims& dims = {});
  uint32_t InternGlobalTrack(StringId name, StringId type = kNullStringId, int64_t cookie = 0,
                             const TrackDims& dims = {});
  // A cpu track belongs to the machine of that cpu (`machine` row id).
  uint32_t InternCpuTrack(uint32_t cpu, StringId name, StringId type = kNullStringId,
                          uint32_t machine = kHostMachineId, const TrackDims& dims = {});

  // Counter tracks.
  uint32_t InternGlobalCounterTrack(StringId name, StringId type = kNullStringId,
                                    StringId unit = kNullStringId, const TrackDims& dims = {});
  uint32_t InternCpuCounterTrack(uint32_t cpu, StringId name, StringId type = kNullStringId,
                                 uint32_t machine = kHostMachineId, const TrackDims& dims = {});
  uint32_t InternProcessCounterTrack(uint32_t upid, StringId name, StringId type = kNullStringId,
                                     const TrackDims& dims = {});
  uint32_t InternThreadCounterTrack(uint32_t utid, StringId name, StringId type = kNullStringId,
                                    const TrackDims& dims = {});

  // A new, never-shared track (TrackEvent descriptors own their tracks).
  uint32_t CreateTrack(bool counter, StringId name, StringId type, std::optional<uint32_t> utid,
                       std::optional<uint32_t> upid, std::optional<uint32_t> cpu);

  // Appends one counter value and extends the trace bounds.
  uint32_t PushCounter(int64_t ts, double value, uint32_t track_id) {
    storage_->UpdateBounds(ts);
    return storage_->counter.Insert(ts, track_id, value);
  }

  // A new track_group_id: groups of interchangeable tracks (TrackEvent
  // merged siblings, atrace async slices of one name) share one numbering,
  // dense in the order each group's first track is created.
  uint32_t NewTrackGroup() { return next_track_group_++; }

  StringId slice_id() const { return slice_; }
  StringId counter_id() const { return counter_; }

 private:
  enum Owner : uint8_t { kGlobal, kThread, kProcess, kCpu };
  using Key =
      std::tuple<uint8_t /*counter*/, uint8_t /*owner*/, uint32_t /*owner id*/, StringId /*name*/,
                 StringId /*type*/, int64_t /*cookie; for cpu tracks the machine*/>;
  uint32_t Intern(const Key& key, const TrackDims& dims, StringId unit = kNullStringId);
  // Writes a new track's dimension set (owner first, then `dims`).
  void CommitDims(uint32_t track, const char* owner_key, std::optional<uint32_t> owner,
                  const TrackDims& dims);

  TraceStorage* storage_;
  ArgsTracker* args_;
  struct KeyHash {
    size_t operator()(const Key& k) const {
      auto [counter, owner, owner_id, name, type, cookie] = k;
      uint64_t h = (uint64_t{counter} << 56) ^ (uint64_t{owner} << 48) ^ owner_id;
      h = h * 0x9E3779B97F4A7C15ull ^ (uint64_t{name} << 32 | type);
      h = h * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(cookie);
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  std::unordered_map<Key, uint32_t, KeyHash> tracks_;
  // Direct-mapped cache in front of tracks_: counter and slice events ask
  // for the same few tracks millions of times and the node-based map's
  // lookup (modulo, chain walk) showed up in import profiles. Tracks are
  // never removed, so an entry stays valid.
  struct CacheSlot {
    Key key;
    uint32_t id = 0;
    bool used = false;
  };
  static constexpr size_t kCacheSize = 4096;
  std::unique_ptr<CacheSlot[]> cache_{new CacheSlot[kCacheSize]};
  std::vector<uint32_t> thread_tracks_;  // utid -> track id + 1 (0 = none)
  StringId slice_;
  StringId counter_;
  uint32_t next_track_group_ = 0;
};

}  // namespace fathom
