// Tracks of TrackEvent data: the TrackDescriptor uuid -> track mapping and the
// implicit tracks TrackEvents fall back to (default track, legacy async and
// instant tracks).
//
// As upstream: descriptors are *reserved* while tokenizing (so events can
// refer to a track whose descriptor is sorted later) and *resolved* into a
// track row the first time a sorted packet needs them. Resolving a thread or
// process descriptor associates it with a utid/upid; a second descriptor uuid
// for the same live thread/process means the tid/pid was reused and starts a
// new thread/process.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/import/legacy_async_tracks.h"
#include "core/import/trace_context.h"

namespace fathom {

struct TrackReservation {
  uint64_t parent_uuid = 0;
  std::optional<int64_t> pid;
  std::optional<int64_t> tid;
  StringId name = kNullStringId;
  bool use_separate_track = false;  // disallow_merging_with_system_tracks
  bool is_counter = false;
  bool is_state = false;              // TrackDescriptor.state: holds TYPE_STATE events
  StringId category = kNullStringId;  // counters: first CounterDescriptor category
  StringId unit = kNullStringId;
  int64_t unit_multiplier = 1;
  bool is_incremental = false;
  // SIBLING_MERGE_BEHAVIOR_NONE: the last descriptor's name wins; otherwise
  // the first named descriptor's.
  bool last_name_wins = false;
  // TrackDescriptor.sibling_merge_behavior and sibling_merge_key: which
  // siblings upstream merges into one track group.
  int64_t merge_behavior = 0;
  StringId merge_key = kNullStringId;
  // Copied into the track's source args (the UI's ordering hints).
  StringId description = kNullStringId;
  std::optional<int64_t> child_ordering;  // TrackDescriptor.ChildTracksOrdering
  std::optional<int64_t> sibling_order_rank;

  bool SameKind(const TrackReservation& o) const {
    return parent_uuid == o.parent_uuid && pid == o.pid && tid == o.tid &&
           is_counter == o.is_counter && is_incremental == o.is_incremental;
  }
};

// Values the tokenizer computed for one packet that the parser cannot
// recompute (they depend on stream-order sequence state).
struct TrackEventPacketExtras {
  std::optional<int64_t> thread_ts;     // ns
  std::optional<double> counter_value;  // accumulated (incremental tracks)
  std::vector<std::pair<uint64_t, double>> extra_counter_values;  // (uuid, accumulated)
};

class TrackEventTracker {
 public:
  explicit TrackEventTracker(TraceContext* ctx);

  // ---- tokenization ----
  void Reserve(uint64_t uuid, const TrackReservation& r);
  const TrackReservation* GetReservation(uint64_t uuid) const;
  void MarkSequenceHasFirstPacket(uint32_t sequence_id) {
    first_packet_sequences_.insert(sequence_id);
  }
  void SetPacketExtras(const uint8_t* packet, TrackEventPacketExtras extras) {
    extras_[packet] = std::move(extras);
  }
  const TrackEventPacketExtras* GetPacketExtras(const uint8_t* packet) const {
    auto it = extras_.find(packet);
    return it == extras_.end() ? nullptr : &it->second;
  }

  // ---- parsing ----
  struct Resolved {
    enum Scope : uint8_t { kGlobal, kThread, kProcess } scope = kGlobal;
    uint32_t utid = 0;
    uint32_t upid = 0;
    bool is_root = false;  // the primary track of its thread/process
    bool is_counter = false;
    bool use_separate_track = false;
  };
  // The track for `uuid` (resolving it now if needed); nullopt when the uuid
  // was never described or its parent chain is broken (a loop, or a
  // parent_uuid nobody described: counted in stats). An unnamed child track
  // takes `event_name` as its name.
  std::optional<uint32_t> GetDescriptorTrack(uint64_t uuid, StringId event_name, int64_t ts,
                                             uint32_t sequence_id);
  // A descriptor for `uuid` was parsed again: an existing track takes the
  // name the descriptors now give it (a descriptor name beats an event name).
  void OnDescriptorParsed(uint64_t uuid);
  std::optional<Resolved> Resolve(uint64_t uuid);

  // ---- UI ordering hints ----
  // The root descriptor (uuid 0) asked for explicit process / thread order.
  void SetExplicitOrdering(bool processes, bool threads) {
    explicit_process_order_ |= processes;
    explicit_thread_order_ |= threads;
  }
  // A process or thread descriptor was resolved; remembered in parse order.
  void OnScopeDescriptorResolved(uint64_t uuid);
  // With explicit ordering, a process/thread descriptor's sibling_order_rank
  // becomes the process's process_sort_index_hint / the thread's
  // thread_sort_index_hint arg (the root may come after them, so at the end).
  void ApplySortIndexHints();

  uint32_t DefaultTrack();
  // The thread's track (shared with other importers), with its dimension args.
  uint32_t ThreadTrack(uint32_t utid);
  // Legacy async events (Chrome JSON phases b/e/n, S/T/p/F), see
  // LegacyAsyncTracks: the trace id is the event's id (unscoped or global
  // ids are one id; a local one is also the process's), the scope its
  // category with ":id_scope" (null when both are empty). `upid` is the
  // event's process.
  uint32_t LegacyAsyncTrack(LegacyAsyncTracks::Kind kind, StringId name, uint32_t upid,
                            bool process_scoped, uint64_t source_id, StringId category,
                            StringId id_scope);
  uint32_t LegacyProcessInstantTrack(uint32_t upid);
  uint32_t LegacyGlobalInstantTrack();

 private:
  // Why a descriptor's parent chain cannot be resolved (upstream's stats).
  enum class HierarchyError : uint8_t { kNone, kLoop, kMissingParent };
  Resolved ResolveOne(uint64_t uuid);
  void CountHierarchyError(HierarchyError error);
  uint32_t CreateTrack(uint64_t uuid, const TrackReservation& r, const Resolved& res);
  void CreateDescriptorTrack(uint64_t uuid, uint32_t sequence_id, StringId event_name, int64_t ts);
  // Upstream merges sibling tracks that share a name (or a sibling merge
  // key) into one group: (parent uuid, key type, key; a NULL key is a group too).
  using MergeKey = std::tuple<uint64_t, int64_t, StringId>;
  std::optional<MergeKey> MergeKeyOf(uint64_t uuid, const TrackReservation& r, const Resolved& res,
                                     StringId event_name) const;
  // The track an event of merged `uuid` goes to at `ts` (see the .cc).
  uint32_t MoveOffBusyTrack(uint64_t uuid, uint32_t track, uint32_t sequence_id, int64_t ts);
  // True while a slice on the track has not ended at `ts`.
  bool TrackBusy(uint32_t track, int64_t ts) const;
  // Sets upstream's track type (global_track_event, process_merged_track_event,
  // thread_counter_track_event, ...) and the track group of a new descriptor track.
  void ClassifyTrack(uint32_t id, const TrackReservation& r, const Resolved& res,
                     const std::optional<MergeKey>& key);
  uint32_t TrackGroup(const MergeKey& key);
  void CommitDimensions(uint32_t id, uint64_t uuid, const Resolved& res,
                        const std::optional<MergeKey>& key);
  // `name` as shown for the track of `uuid` (after the translation table).
  StringId ShownName(uint64_t uuid, StringId name) const;

  TraceContext* ctx_;
  std::unordered_map<uint64_t, TrackReservation> reservations_;
  std::unordered_map<uint64_t, Resolved> resolved_;
  // Descriptors whose chain has a loop or a missing parent: each later use
  // fails again (and is counted again, as upstream counts it) without a walk.
  std::unordered_map<uint64_t, HierarchyError> broken_;
  uint64_t reported_hierarchy_errors_ = 0;
  std::unordered_map<uint64_t, uint32_t> tracks_;  // uuid -> track id
  std::unordered_map<uint32_t, uint64_t> uuid_by_utid_;
  std::unordered_map<uint32_t, uint64_t> uuid_by_upid_;
  std::unordered_map<uint32_t, uint32_t> separate_thread_tracks_;  // utid -> track
  std::unordered_set<uint32_t> first_packet_sequences_;
  std::unordered_map<const uint8_t*, TrackEventPacketExtras> extras_;
  LegacyAsyncTracks async_tracks_;
  std::optional<uint32_t> default_track_;
  std::map<MergeKey, uint32_t> groups_;                     // -> track_group_id
  std::map<MergeKey, std::vector<uint32_t>> group_tracks_;  // the group's tracks
  std::unordered_map<uint64_t, MergeKey> merged_keys_;      // merged uuid -> its group
  std::unordered_map<uint32_t, uint64_t> track_users_;      // merged track -> uuid placed last
  std::unordered_set<uint64_t> nameless_merged_;  // merged tracks with no name to merge by
  bool explicit_process_order_ = false;
  bool explicit_thread_order_ = false;
  std::vector<uint64_t> scope_descriptors_;  // with a sibling_order_rank, parse order
};

}  // namespace fathom
