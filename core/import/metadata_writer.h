// Writes rows of the `metadata` table with upstream's key names and key types:
// "single" keys hold one value (a later Set replaces it), "multi" keys keep
// every value appended.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/storage/trace_storage.h"

namespace fathom {

class MetadataWriter {
 public:
  explicit MetadataWriter(TraceStorage* storage) : storage_(storage) {}

  void SetInt(std::string_view name, int64_t value);
  void SetString(std::string_view name, std::string_view value);
  void AppendInt(std::string_view name, int64_t value);
  void AppendString(std::string_view name, std::string_view value);
  // True when a single-valued key already has a row.
  bool Has(std::string_view name) const;

 private:
  void Set(std::string_view name, std::optional<int64_t> iv, StringId sv);

  TraceStorage* storage_;
};

}  // namespace fathom
