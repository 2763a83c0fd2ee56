// atrace async slices (S/F markers), laid out as upstream does: the slices of
// one (process, name) share a group of tracks handed out by a
// TrackCompressor keyed by cookie, each track with the dimensions upid, name
// and track_compressor_idx. The slices are "unnestable": a second S of an
// open cookie only counts as a begin. Each slice gets its cookie as an arg
// and, when it ends, its track's begin count so far and latest begin time
// (legacy_unnestable_begin_count / legacy_unnestable_last_begin_ts).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "core/import/trace_context.h"
#include "core/import/track_compressor.h"

namespace fathom {

class AtraceAsyncTracks {
 public:
  explicit AtraceAsyncTracks(TraceContext* ctx);

  void Begin(int64_t ts, uint32_t upid, std::string_view name, int64_t cookie);
  void End(int64_t ts, uint32_t upid, std::string_view name, int64_t cookie);

 private:
  struct Group {
    TrackCompressor tracks;
    std::optional<uint32_t> track_group_id;  // with its first track
  };
  Group& GroupOf(uint32_t upid, StringId name);
  TrackCompressor::Factory Factory(Group* group, uint32_t upid, StringId name,
                                   std::string_view name_text);

  struct Begins {
    int64_t count = 0;
    int64_t last_ts = 0;
  };

  TraceContext* ctx_;
  StringId type_;
  std::unordered_map<uint64_t, Group> groups_;   // (upid, name)
  std::unordered_map<uint32_t, Begins> begins_;  // by track
};

}  // namespace fathom
