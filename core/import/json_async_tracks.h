// Tracks of the Chrome JSON format's legacy async events (b/e/n), laid out
// as the reference does. An event's trace id is its category and id ("id",
// else id2's "global" or "local"); a "local" id is scoped to the process.
// Each trace id keeps the name it was first seen with (its root name), and
// the trace ids sharing a root name (and, when process scoped, a process)
// share a group of tracks handed out by a TrackCompressor: a trace id keeps
// the slot it last used, else takes the lowest slot with no open slice. A
// group's tracks get one track_group_id and the dimensions (upid,) scope,
// name and track_compressor_idx; the creating event's process is kept in
// the source args.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>

#include "core/import/trace_context.h"
#include "core/import/track_compressor.h"

namespace fathom {

class JsonAsyncTracks {
 public:
  explicit JsonAsyncTracks(TraceContext* ctx);

  enum class Kind { kBegin, kEnd, kInstant };
  // The track an event of trace id `trace_id` (any text naming category and
  // id) lands on; `upid` is the event's process.
  uint32_t Track(Kind kind, uint32_t upid, StringId name, const std::string& trace_id,
                 bool process_scoped);

 private:
  struct Group {
    TrackCompressor tracks;
    std::optional<uint32_t> track_group_id;  // with its first track
  };
  // (process scoped, upid or 0, root name)
  using GroupKey = std::tuple<bool, uint32_t, StringId>;
  TrackCompressor::Factory Factory(Group* group, const GroupKey& key, uint32_t upid, StringId name);

  TraceContext* ctx_;
  StringId global_type_, process_type_;
  // Trace ids (with the upid for process-scoped ones) -> cookie and root
  // name.
  struct Id {
    int64_t cookie;
    StringId root_name;
  };
  std::unordered_map<std::string, Id> ids_;
  std::map<GroupKey, Group> groups_;
};

}  // namespace fathom
