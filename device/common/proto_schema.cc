#include "proto_schema.h"

namespace fathom::device {
namespace {
#include "gen/proto_schema.inc"
}  // namespace

const SchemaMessage* FindMessage(std::string_view name) {
  for (const SchemaMessage& m : kMessages)
    if (name == m.name) return &m;
  return nullptr;
}

const SchemaMessage& MessageAt(int32_t index) { return kMessages[index]; }
const SchemaEnum& EnumAt(int32_t index) { return kEnums[index]; }

std::span<const SchemaField> Fields(const SchemaMessage& message) {
  return {kFields + message.first_field, message.field_count};
}

std::span<const SchemaEnumValue> Values(const SchemaEnum& e) {
  return {kEnumValues + e.first_value, e.value_count};
}

const SchemaField* FindField(const SchemaMessage& message, std::string_view name) {
  for (const SchemaField& f : Fields(message))
    if (name == f.name) return &f;
  return nullptr;
}

const SchemaField* FindFieldByNumber(const SchemaMessage& message, uint32_t number) {
  for (const SchemaField& f : Fields(message))
    if (f.number == number) return &f;
  return nullptr;
}

bool FindEnumValue(const SchemaEnum& e, std::string_view name, int32_t* value) {
  for (const SchemaEnumValue& v : Values(e)) {
    if (name == v.name) {
      *value = v.value;
      return true;
    }
  }
  return false;
}

}  // namespace fathom::device
