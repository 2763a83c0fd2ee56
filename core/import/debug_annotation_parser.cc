#include "core/import/debug_annotation_parser.h"

#include <vector>

#include "perfetto/trace/trace.pb.h"

namespace fathom {
namespace {

using perfetto::protos::DebugAnnotation;
using perfetto::protos::DebugAnnotation_NestedValue;
using perfetto::protos::DebugAnnotationName;
using perfetto::protos::InternedData;
using perfetto::protos::InternedString;
using proto::Bytes;
using proto::Decoder;
using proto::Field;

// Field 2 of an interned {iid, name/str} entry.
std::string_view InternedName(const SequenceGeneration& gen, uint32_t table, uint64_t iid) {
  const Bytes* b = gen.GetInterned(table, iid);
  if (!b) return {};
  Decoder d(*b);
  for (Field f = d.Next(); f.valid(); f = d.Next())
    if (f.id == DebugAnnotationName::kNameFieldNumber) return f.as_string();
  return {};
}

}  // namespace

std::string DebugAnnotationParser::NameOf(Bytes annotation) const {
  Decoder d(annotation);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == DebugAnnotation::kNameFieldNumber) return std::string(f.as_string());
    if (f.id == DebugAnnotation::kNameIidFieldNumber)
      return std::string(
          InternedName(gen_, InternedData::kDebugAnnotationNamesFieldNumber, f.int_value));
  }
  return {};
}

bool DebugAnnotationParser::Parse(Bytes annotation, ArgsTracker::Builder* args) {
  std::string name = NameOf(annotation);
  if (name.empty()) return false;
  return ParseValue(annotation, "debug." + name, args);
}

bool DebugAnnotationParser::ParseValue(Bytes annotation, const std::string& key,
                                       ArgsTracker::Builder* args) {
  bool ok = true;
  size_t array_index = 0;
  Decoder d(annotation);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case DebugAnnotation::kBoolValueFieldNumber:
        args->AddBool(key, f.as_bool());
        break;
      case DebugAnnotation::kUintValueFieldNumber:
        args->AddUint(key, f.int_value);
        break;
      case DebugAnnotation::kIntValueFieldNumber:
        args->AddInt(key, f.as_int64());
        break;
      case DebugAnnotation::kDoubleValueFieldNumber:
        args->AddReal(key, f.as_double());
        break;
      case DebugAnnotation::kStringValueFieldNumber:
        args->AddString(key, f.as_string());
        break;
      case DebugAnnotation::kStringValueIidFieldNumber:
        args->AddString(
            key,
            InternedName(gen_, InternedData::kDebugAnnotationStringValuesFieldNumber, f.int_value));
        break;
      case DebugAnnotation::kPointerValueFieldNumber:
        args->AddPointer(key, f.int_value);
        break;
      case DebugAnnotation::kLegacyJsonValueFieldNumber:
        args->AddJson(key, f.as_string());
        break;
      case DebugAnnotation::kNestedValueFieldNumber:
        ok &= ParseNestedValue(f.bytes, key, args);
        break;
      case DebugAnnotation::kDictEntriesFieldNumber: {
        std::string child = NameOf(f.bytes);
        ok &= ParseValue(f.bytes, key + "." + child, args);
        break;
      }
      case DebugAnnotation::kArrayValuesFieldNumber:
        ok &= ParseValue(f.bytes, key + "[" + std::to_string(array_index++) + "]", args);
        break;
      default:
        break;  // names, proto values (need descriptors; not decoded)
    }
  }
  return ok && !d.error();
}

bool DebugAnnotationParser::ParseNestedValue(Bytes nested, const std::string& key,
                                             ArgsTracker::Builder* args) {
  using NV = DebugAnnotation_NestedValue;
  std::vector<std::string_view> dict_keys;
  std::vector<Bytes> dict_values, array_values;
  uint32_t type = NV::UNSPECIFIED;
  Decoder d(nested);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case NV::kNestedTypeFieldNumber:
        type = f.as_uint32();
        break;
      case NV::kDictKeysFieldNumber:
        dict_keys.push_back(f.as_string());
        break;
      case NV::kDictValuesFieldNumber:
        dict_values.push_back(f.bytes);
        break;
      case NV::kArrayValuesFieldNumber:
        array_values.push_back(f.bytes);
        break;
      case NV::kIntValueFieldNumber:
        args->AddInt(key, f.as_int64());
        break;
      case NV::kDoubleValueFieldNumber:
        args->AddReal(key, f.as_double());
        break;
      case NV::kBoolValueFieldNumber:
        args->AddBool(key, f.as_bool());
        break;
      case NV::kStringValueFieldNumber:
        args->AddString(key, f.as_string());
        break;
      default:
        break;
    }
  }
  bool ok = !d.error();
  if (type == NV::DICT) {
    for (size_t i = 0; i < dict_keys.size() && i < dict_values.size(); ++i)
      ok &= ParseNestedValue(dict_values[i], key + "." + std::string(dict_keys[i]), args);
  } else if (type == NV::ARRAY) {
    for (size_t i = 0; i < array_values.size(); ++i)
      ok &= ParseNestedValue(array_values[i], key + "[" + std::to_string(i) + "]", args);
  }
  return ok;
}

}  // namespace fathom
