// Writes rows of the `metadata` table with upstream's key names and key types:
// "single" keys hold one value (a later Set replaces it), "multi" keys keep
// every value appended. Each row carries the ids of its key's scope
// (metadata_scope.h): machine-scoped keys are written for the machine set
// with set_machine (the host until then).
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
  // Appends a row whose key_type still says "single" (upstream writes some
  // repeated Chrome keys that way).
  void AppendIntTypedSingle(std::string_view name, int64_t value);
  // True when a single-valued key already has a row (for the current machine,
  // if the key is per machine).
  bool Has(std::string_view name) const;
  // Sets a key of `machine`, whichever machine set_machine chose.
  void SetIntForMachine(std::string_view name, int64_t value, uint32_t machine);
  // The `machine` row that machine-scoped keys written from now on describe.
  void set_machine(uint32_t machine_id) { machine_id_ = machine_id; }

 private:
  void Set(std::string_view name, std::optional<int64_t> iv, StringId sv);
  RowScope ScopeOf(std::string_view name) const;
  std::optional<uint32_t> FindRow(StringId name, const RowScope& scope) const;

  TraceStorage* storage_;
  uint32_t machine_id_ = kHostMachineId;
};

}  // namespace fathom
