// The args --analyze-trace-proto-content adds for TrackEvents: one arg set
// {event.category, event.name} per distinct pair among the parsed events
// (a missing category or name is a NULL string). Upstream writes them when
// its proto-content analysis finishes, after every event's own args, so
// they are written at the end of the import here too.
#pragma once

#include <set>
#include <utility>
#include <vector>

#include "core/storage/trace_storage.h"

namespace fathom {

class ArgsTracker;

class TrackEventAnnotations {
 public:
  void Note(StringId category, StringId name);
  // Writes one arg set per pair noted, in the order first noted.
  void Write(ArgsTracker* args);

 private:
  std::set<std::pair<StringId, StringId>> seen_;
  std::vector<std::pair<StringId, StringId>> order_;
};

}  // namespace fathom
