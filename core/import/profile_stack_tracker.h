// Interns the callstacks of every profiler (heapprofd, perf, StackSample, ART
// OOME stacks) into stack_profile_mapping / frame / callsite, deduplicating
// equal mappings, frames and (parent, frame) callsites across sequences.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "core/import/proto_decoder.h"
#include "core/storage/trace_storage.h"

namespace fathom {

struct SequenceGeneration;

// Where a sequence's profile ids (strings, frames, callstacks, mappings) are
// looked up: the ProfilePacket's own tables (Android 10) or InternedData.
// Returns serialized messages; strings are InternedString messages.
class ProfileIdSource {
 public:
  enum Kind { kFunctionName, kMappingPath, kBuildId, kFrame, kCallstack, kMapping };
  virtual ~ProfileIdSource() = default;
  virtual std::optional<proto::Bytes> Get(Kind kind, uint64_t iid) const = 0;
  // What a frame without a function name is called: NULL for perf samples and the
  // other InternedData sources, "" for heapprofd's ProfilePackets (as upstream).
  virtual bool unnamed_frames_empty() const { return false; }
  // heapprofd's rules (as upstream's): an id that does not resolve - a
  // string, or a frame's mapping - makes the mapping, frame or callstack
  // that names it invalid (counted when it is used) instead of leaving the
  // part out; a mapping without a build id looks up string id 0.
  virtual bool strict() const { return false; }
  // A callstack missing from the interned data is also an interned data
  // error (heapprofd, as upstream).
  virtual bool missing_is_interned_error() const { return strict(); }
  // The process whose address space the mappings belong to: as upstream, a
  // perf sample's mappings are that process's own rows (not shared with
  // another process's identical mapping). nullopt: shared by all.
  virtual std::optional<uint32_t> mapping_owner() const { return std::nullopt; }
};

// InternedData lookup of one sequence generation.
class InternedProfileIds : public ProfileIdSource {
 public:
  explicit InternedProfileIds(const SequenceGeneration& gen,
                              std::optional<uint32_t> mapping_owner = std::nullopt)
      : gen_(gen), mapping_owner_(mapping_owner) {}
  std::optional<proto::Bytes> Get(Kind kind, uint64_t iid) const override;
  std::optional<uint32_t> mapping_owner() const override { return mapping_owner_; }

 private:
  const SequenceGeneration& gen_;
  std::optional<uint32_t> mapping_owner_;
};

class StackProfileTracker {
 public:
  explicit StackProfileTracker(TraceStorage* storage) : storage_(storage) {}

  // Callsite id of the leaf of callstack `iid`, or nullopt when the callstack
  // is unknown or empty. `cache_key` identifies the id namespace (e.g. the
  // sequence generation) so repeated lookups are O(1).
  std::optional<uint32_t> ResolveCallstack(const ProfileIdSource& ids, const void* cache_key,
                                           uint64_t iid);
  // Same for an inline Callstack message (StackSample.callstack).
  std::optional<uint32_t> ResolveCallstackMessage(const ProfileIdSource& ids, const void* cache_key,
                                                  proto::Bytes callstack);
  // stack_profile_mapping row of interned mapping `iid` (nullopt, counted,
  // when unknown).
  std::optional<uint32_t> ResolveMappingIid(const ProfileIdSource& ids, const void* cache_key,
                                            uint64_t iid) {
    return ResolveMapping(ids, caches_[cache_key], iid);
  }
  // Same for frame `iid`.
  std::optional<uint32_t> ResolveFrameIid(const ProfileIdSource& ids, const void* cache_key,
                                          uint64_t iid) {
    return ResolveFrame(ids, caches_[cache_key], iid);
  }
  // Interns mapping, frame or callstack `iid` now unless already known: as
  // upstream, heapprofd's own tables are interned in packet order, used or
  // not. A failure is remembered (strict sources) and counted when used.
  void Preresolve(const ProfileIdSource& ids, const void* cache_key, ProfileIdSource::Kind kind,
                  uint64_t iid);
  // Forget cached ids of `cache_key` (its tables were redefined).
  void ClearCache(const void* cache_key);

  uint32_t InternMapping(StringId build_id, int64_t exact_offset, int64_t start_offset,
                         int64_t start, int64_t end, int64_t load_bias, StringId name,
                         std::optional<uint32_t> owner = std::nullopt);
  uint32_t InternFrame(uint32_t mapping, int64_t rel_pc, StringId name, StringId type);
  uint32_t InternCallsite(std::optional<uint32_t> parent, uint32_t frame);

  // Frames of a mapping with the given (name, build_id), for offline
  // symbolization (ModuleSymbols).
  std::vector<uint32_t> FramesOfMapping(uint32_t mapping) const;

 private:
  struct Cache {
    // nullopt: known invalid (strict sources only).
    std::unordered_map<uint64_t, std::optional<uint32_t>> frames, mappings;
    std::unordered_map<uint64_t, std::optional<uint32_t>> callstacks;
  };
  std::optional<uint32_t> ResolveFrame(const ProfileIdSource& ids, Cache& cache, uint64_t iid);
  std::optional<uint32_t> ResolveMapping(const ProfileIdSource& ids, Cache& cache, uint64_t iid);
  std::optional<std::string_view> ResolveString(const ProfileIdSource& ids,
                                                ProfileIdSource::Kind kind, uint64_t iid);
  std::optional<uint32_t> ParseMapping(const ProfileIdSource& ids, proto::Bytes mapping);
  std::optional<uint32_t> ParseFrame(const ProfileIdSource& ids, Cache& cache, proto::Bytes frame);
  std::optional<uint32_t> CallsiteOfFrames(const ProfileIdSource& ids, Cache& cache,
                                           proto::Bytes callstack);

  TraceStorage* storage_;
  std::unordered_map<const void*, Cache> caches_;
  // Keyed by owner too (-1: shared).
  std::map<std::tuple<int64_t, StringId, int64_t, int64_t, int64_t, int64_t, int64_t, StringId>,
           uint32_t>
      mapping_ids_;
  std::map<std::tuple<uint32_t, int64_t, StringId, StringId>, uint32_t> frame_ids_;
  std::map<std::pair<int64_t, uint32_t>, uint32_t> callsite_ids_;  // (parent or -1, frame)
  std::unordered_map<uint32_t, std::vector<uint32_t>> frames_by_mapping_;
};

// A Perfetto profile's build ids arrive as raw bytes and are shown as lower
// case hex, printable or not (as upstream: "build-id" -> "6275696c642d6964"),
// so that a symbol file's ModuleSymbols.build_id, hex-encoded the same way,
// finds its mapping.
std::string BuildIdToHex(std::string_view raw);
// pprof keeps build ids as text in its string table: hex-encode only ids
// that are not printable.
std::string BuildIdToDisplay(std::string_view raw);

}  // namespace fathom
