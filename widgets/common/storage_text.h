// Strings of the loaded trace as QString, for widgets that read storage on a
// worker lane. No copy through std::string.
#pragma once

#include <QString>

#include "core/storage/trace_storage.h"

namespace fathom::gui {

inline QString StorageText(const TraceStorage& s, StringId id) {
  if (id == kNullStringId) return {};
  std::string_view v = s.GetString(id);
  return QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size()));
}

}  // namespace fathom::gui
