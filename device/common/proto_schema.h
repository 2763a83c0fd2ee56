// A field table of every message and enum in protos/perfetto, generated into
// gen/proto_schema.inc by gen_proto_tables.py. The on-device programs have no libprotobuf
// (and so no descriptors); this table drives the text-format config parser and maps
// tracefs event/field names to FtraceEvent field numbers.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace fathom::device {

enum class FieldKind : uint8_t {
  kVarint,   // int32/int64/uint32/uint64
  kZigZag,   // sint32/sint64
  kFixed32,  // fixed32/sfixed32/float
  kFixed64,  // fixed64/sfixed64/double
  kBool,
  kString,
  kBytes,
  kMessage,
  kEnum,
};

struct SchemaField {
  const char* name;
  uint32_t number;
  FieldKind kind;
  int32_t ref;  // message index (kMessage) or enum index (kEnum), else -1
  bool repeated;
  bool packed;
  bool is_signed;  // int32/int64/sint*/sfixed*
};

struct SchemaMessage {
  const char* name;  // without the package, nested with dots: "TraceConfig.BufferConfig"
  uint32_t first_field;
  uint32_t field_count;
};

struct SchemaEnumValue {
  const char* name;
  int32_t value;
};

struct SchemaEnum {
  const char* name;
  uint32_t first_value;
  uint32_t value_count;
};

// nullptr when unknown. Lookups are linear over ~1000 messages: call once at startup.
const SchemaMessage* FindMessage(std::string_view name);
const SchemaMessage& MessageAt(int32_t index);
const SchemaEnum& EnumAt(int32_t index);
std::span<const SchemaField> Fields(const SchemaMessage& message);
std::span<const SchemaEnumValue> Values(const SchemaEnum& e);
const SchemaField* FindField(const SchemaMessage& message, std::string_view name);
const SchemaField* FindFieldByNumber(const SchemaMessage& message, uint32_t number);
// Returns false when `name` is not a value of the enum.
bool FindEnumValue(const SchemaEnum& e, std::string_view name, int32_t* value);

}  // namespace fathom::device
