#include "core/import/metadata_writer.h"

#include "core/import/metadata_scope.h"

namespace fathom {

RowScope MetadataWriter::ScopeOf(std::string_view name) const {
  switch (ScopeOfMetadataKey(name)) {
    case MetadataScope::kLoad:
      return {};
    case MetadataScope::kTrace:
      return {std::nullopt, TraceStorage::kTraceId};
    case MetadataScope::kMachine:
      return {machine_id_, std::nullopt};
    case MetadataScope::kMachineAndTrace:
      return {machine_id_, TraceStorage::kTraceId};
  }
  return {};
}

std::optional<uint32_t> MetadataWriter::FindRow(StringId name, const RowScope& scope) const {
  const auto& md = storage_->metadata;
  for (uint32_t row = 0; row < md.row_count(); ++row) {
    if (md.name[row] != name) continue;
    std::optional<uint32_t> machine;
    if (!md.machine_id.IsNull(row)) machine = md.machine_id[row];
    if (machine == scope.machine_id) return row;
  }
  return std::nullopt;
}

bool MetadataWriter::Has(std::string_view name) const {
  StringId id = storage_->strings.Find(name);
  if (id == kNullStringId) return false;
  return FindRow(id, ScopeOf(name)).has_value();
}

void MetadataWriter::Set(std::string_view name, std::optional<int64_t> iv, StringId sv) {
  StringId id = storage_->Intern(name);
  RowScope scope = ScopeOf(name);
  auto& md = storage_->metadata;
  if (std::optional<uint32_t> row = FindRow(id, scope)) {
    if (iv) {
      md.int_value.Set(*row, *iv);
    } else {
      md.int_value.SetNull(*row);
    }
    md.str_value.Set(*row, sv);
    return;
  }
  md.Insert(id, storage_->Intern("single"), iv, sv, scope);
}

void MetadataWriter::SetInt(std::string_view name, int64_t value) {
  Set(name, value, kNullStringId);
}

void MetadataWriter::SetIntForMachine(std::string_view name, int64_t value, uint32_t machine) {
  const uint32_t current = machine_id_;
  machine_id_ = machine;
  Set(name, value, kNullStringId);
  machine_id_ = current;
}

void MetadataWriter::SetString(std::string_view name, std::string_view value) {
  Set(name, std::nullopt, storage_->Intern(value));
}

void MetadataWriter::AppendInt(std::string_view name, int64_t value) {
  storage_->metadata.Insert(storage_->Intern(name), storage_->Intern("multi"), value, kNullStringId,
                            ScopeOf(name));
}

void MetadataWriter::AppendIntTypedSingle(std::string_view name, int64_t value) {
  storage_->metadata.Insert(storage_->Intern(name), storage_->Intern("single"), value,
                            kNullStringId, ScopeOf(name));
}

void MetadataWriter::AppendString(std::string_view name, std::string_view value) {
  storage_->metadata.Insert(storage_->Intern(name), storage_->Intern("multi"), std::nullopt,
                            storage_->Intern(value), ScopeOf(name));
}

}  // namespace fathom
