// Tracks of Chrome's legacy async events (b/e/n), from JSON traces and from
// TrackEvent legacy_event fields, laid out as the reference does. An event
// names a trace id (the caller's text; a process-scoped one also belongs to
// the process) and a scope (null for JSON; the category, with ":id_scope",
// for TrackEvent). Each trace id keeps the name it was first seen with (its
// root name), and the trace ids sharing a scope and root name (and, when
// process scoped, a process) share a group of tracks handed out by a
// TrackCompressor: a trace id keeps the slot it last used, else takes the
// lowest slot with no open slice, else a new one. A group's tracks get one
// track_group_id and the dimensions (upid,) scope, name and
// track_compressor_idx; the creating event's process is kept in the source
// args.
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

class LegacyAsyncTracks {
 public:
  explicit LegacyAsyncTracks(TraceContext* ctx);

  enum class Kind { kBegin, kEnd, kInstant };
  struct Event {
    Kind kind;
    uint32_t upid;  // the event's process
    StringId name;
    StringId scope;
    const std::string& trace_id;
    bool process_scoped;
  };
  // The track the event lands on.
  uint32_t Track(const Event& e);

 private:
  struct Group {
    TrackCompressor tracks;
  };
  // (process scoped, upid or 0, scope, root name)
  using GroupKey = std::tuple<bool, uint32_t, StringId, StringId>;
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
