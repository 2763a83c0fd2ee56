#include "core/import/metadata_writer.h"

namespace fathom {

bool MetadataWriter::Has(std::string_view name) const {
  StringId id = storage_->strings.Find(name);
  if (id == kNullStringId) return false;
  const auto& names = storage_->metadata.name;
  for (uint32_t row = 0; row < storage_->metadata.row_count(); ++row)
    if (names[row] == id) return true;
  return false;
}

void MetadataWriter::Set(std::string_view name, std::optional<int64_t> iv, StringId sv) {
  StringId id = storage_->Intern(name);
  auto& md = storage_->metadata;
  for (uint32_t row = 0; row < md.row_count(); ++row) {
    if (md.name[row] != id) continue;
    if (iv) {
      md.int_value.Set(row, *iv);
    } else {
      md.int_value.SetNull(row);
    }
    md.str_value.Set(row, sv);
    return;
  }
  md.Insert(id, storage_->Intern("single"), iv, sv);
}

void MetadataWriter::SetInt(std::string_view name, int64_t value) {
  Set(name, value, kNullStringId);
}

void MetadataWriter::SetString(std::string_view name, std::string_view value) {
  Set(name, std::nullopt, storage_->Intern(value));
}

void MetadataWriter::AppendInt(std::string_view name, int64_t value) {
  storage_->metadata.Insert(storage_->Intern(name), storage_->Intern("multi"), value,
                            kNullStringId);
}

void MetadataWriter::AppendString(std::string_view name, std::string_view value) {
  storage_->metadata.Insert(storage_->Intern(name), storage_->Intern("multi"), std::nullopt,
                            storage_->Intern(value));
}

}  // namespace fathom
