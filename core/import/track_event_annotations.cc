#include "core/import/track_event_annotations.h"

#include "core/import/args_tracker.h"

namespace fathom {

void TrackEventAnnotations::Note(StringId category, StringId name) {
  if (seen_.emplace(category, name).second) order_.emplace_back(category, name);
}

void TrackEventAnnotations::Write(ArgsTracker* args) {
  for (const auto& [category, name] : order_) {
    auto set = args->NewSet();
    set.AddString("event.category", category);
    set.AddString("event.name", name);
    set.Commit();
  }
  order_.clear();
  seen_.clear();
}

}  // namespace fathom
