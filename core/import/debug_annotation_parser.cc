#include "core/import/debug_annotation_parser.h"

#include <algorithm>
#include <optional>
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

// One level of the walk: a DebugAnnotation that is a dict or an array (its
// children are read one at a time from `d`) or a legacy NestedValue (its
// scalars are written when it is opened, its children listed in `children`).
struct DebugAnnotationParser::Frame {
  bool nested = false;
  size_t key_len = 0;  // this level's key is key_[0, key_len)
  Decoder d{nullptr, 0};
  uint32_t only = 0;  // the field a dict (dict_entries) or array (array_values) visits
  size_t array_index = 0;
  bool is_dict = false;
  std::vector<std::string_view> dict_keys;
  std::vector<Bytes> children;
  size_t next = 0;
};

bool DebugAnnotationParser::ChargeKey() {
  key_bytes_ += key_.size();
  if (key_bytes_ <= max_key_bytes_) return true;
  truncated_ = true;
  ok_ = false;
  return false;
}

bool DebugAnnotationParser::Parse(Bytes annotation, ArgsTracker::Builder* args) {
  std::string name = NameOf(annotation);
  if (name.empty()) return false;
  key_ = "debug." + name;
  key_bytes_ = 0;
  ok_ = true;
  std::vector<Frame> stack;
  if (std::optional<Frame> root = OpenAnnotation(annotation, args))
    stack.push_back(std::move(*root));
  while (!stack.empty() && key_bytes_ <= max_key_bytes_) {
    Frame& top = stack.back();
    key_.resize(top.key_len);
    // A step extends key_ for the child it opens (and returns true), or
    // finishes the frame.
    bool opened = top.nested ? StepNested(top) : StepAnnotation(top);
    if (!opened) {
      if (!top.nested && top.d.error()) ok_ = false;
      stack.pop_back();
      continue;
    }
    // `top` is not used past this point (the push may move it).
    if (pending_nested_) {
      stack.push_back(OpenNested(pending_bytes_, args));
    } else if (std::optional<Frame> child = OpenAnnotation(pending_bytes_, args)) {
      stack.push_back(std::move(*child));
    }
  }
  return ok_;
}

bool DebugAnnotationParser::StepAnnotation(Frame& fr) {
  pending_nested_ = false;
  for (Field f = fr.d.Next(); f.valid(); f = fr.d.Next()) {
    if (f.id != fr.only) continue;
    if (f.id == DebugAnnotation::kDictEntriesFieldNumber) {
      key_ += '.';
      key_ += NameOf(f.bytes);
    } else {
      key_ += '[';
      key_ += std::to_string(fr.array_index++);
      key_ += ']';
    }
    pending_bytes_ = f.bytes;
    return true;
  }
  return false;
}

namespace {

// Which value upstream reads when an annotation sets several: lower wins (0:
// not a value field). A dict or an array wins over any of them.
int ValueRank(uint32_t field) {
  switch (field) {
    case DebugAnnotation::kBoolValueFieldNumber:
      return 1;
    case DebugAnnotation::kUintValueFieldNumber:
      return 2;
    case DebugAnnotation::kIntValueFieldNumber:
      return 3;
    case DebugAnnotation::kDoubleValueFieldNumber:
      return 4;
    case DebugAnnotation::kStringValueFieldNumber:
      return 5;
    case DebugAnnotation::kStringValueIidFieldNumber:
      return 6;
    case DebugAnnotation::kPointerValueFieldNumber:
      return 7;
    case DebugAnnotation::kLegacyJsonValueFieldNumber:
      return 8;
    case DebugAnnotation::kNestedValueFieldNumber:
      return 9;
    default:
      return 0;
  }
}

}  // namespace

std::optional<DebugAnnotationParser::Frame> DebugAnnotationParser::OpenAnnotation(
    Bytes annotation, ArgsTracker::Builder* args) {
  // As upstream, an annotation holds one thing: its dict entries, else its
  // array values, else one value (by ValueRank; the last of a repeated field).
  bool dict = false, array = false;
  Field value;
  int value_rank = 0;
  Decoder d(annotation);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    dict |= f.id == DebugAnnotation::kDictEntriesFieldNumber;
    array |= f.id == DebugAnnotation::kArrayValuesFieldNumber;
    int rank = ValueRank(f.id);
    if (rank && (value_rank == 0 || rank <= value_rank)) {
      value = f;
      value_rank = rank;
    }
  }
  if (d.error()) ok_ = false;
  if (dict || array) {
    Frame fr;
    fr.d = Decoder(annotation);
    fr.key_len = key_.size();
    fr.only =
        dict ? DebugAnnotation::kDictEntriesFieldNumber : DebugAnnotation::kArrayValuesFieldNumber;
    return fr;
  }
  if (value_rank == 0) return std::nullopt;
  if (value.id == DebugAnnotation::kNestedValueFieldNumber) return OpenNested(value.bytes, args);
  AddScalar(value, args);
  return std::nullopt;
}

void DebugAnnotationParser::AddScalar(const Field& f, ArgsTracker::Builder* args) {
  switch (f.id) {
    case DebugAnnotation::kBoolValueFieldNumber:
      if (ChargeKey()) args->AddBool(key_, f.as_bool());
      break;
    case DebugAnnotation::kUintValueFieldNumber:
      if (ChargeKey()) args->AddUint(key_, f.int_value);
      break;
    case DebugAnnotation::kIntValueFieldNumber:
      if (ChargeKey()) args->AddInt(key_, f.as_int64());
      break;
    case DebugAnnotation::kDoubleValueFieldNumber:
      if (ChargeKey()) args->AddReal(key_, f.as_double());
      break;
    case DebugAnnotation::kStringValueFieldNumber:
      if (ChargeKey()) args->AddString(key_, f.as_string());
      break;
    case DebugAnnotation::kStringValueIidFieldNumber:
      if (ChargeKey())
        args->AddString(
            key_,
            InternedName(gen_, InternedData::kDebugAnnotationStringValuesFieldNumber, f.int_value));
      break;
    case DebugAnnotation::kPointerValueFieldNumber:
      if (ChargeKey()) args->AddPointer(key_, f.int_value);
      break;
    case DebugAnnotation::kLegacyJsonValueFieldNumber:
      if (ChargeKey()) args->AddJson(key_, f.as_string());
      break;
    default:
      break;  // names, proto values (need descriptors; not decoded)
  }
}

bool DebugAnnotationParser::StepNested(Frame& fr) {
  if (fr.next >= fr.children.size()) return false;
  size_t i = fr.next++;
  pending_nested_ = true;
  pending_bytes_ = fr.children[i];
  if (fr.is_dict) {
    key_ += '.';
    key_ += fr.dict_keys[i];
  } else {
    key_ += '[';
    key_ += std::to_string(i);
    key_ += ']';
  }
  return true;
}

DebugAnnotationParser::Frame DebugAnnotationParser::OpenNested(Bytes nested,
                                                               ArgsTracker::Builder* args) {
  using NV = DebugAnnotation_NestedValue;
  Frame fr;
  fr.nested = true;
  fr.key_len = key_.size();
  std::vector<Bytes> dict_values, array_values;
  uint32_t type = NV::UNSPECIFIED;
  Decoder d(nested);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case NV::kNestedTypeFieldNumber:
        type = f.as_uint32();
        break;
      case NV::kDictKeysFieldNumber:
        fr.dict_keys.push_back(f.as_string());
        break;
      case NV::kDictValuesFieldNumber:
        dict_values.push_back(f.bytes);
        break;
      case NV::kArrayValuesFieldNumber:
        array_values.push_back(f.bytes);
        break;
      case NV::kIntValueFieldNumber:
        if (ChargeKey()) args->AddInt(key_, f.as_int64());
        break;
      case NV::kDoubleValueFieldNumber:
        if (ChargeKey()) args->AddReal(key_, f.as_double());
        break;
      case NV::kBoolValueFieldNumber:
        if (ChargeKey()) args->AddBool(key_, f.as_bool());
        break;
      case NV::kStringValueFieldNumber:
        if (ChargeKey()) args->AddString(key_, f.as_string());
        break;
      default:
        break;
    }
  }
  if (d.error()) ok_ = false;
  // Children are visited after the value's own scalars, pairs of dict keys
  // and values up to the shorter list.
  if (type == NV::DICT) {
    fr.is_dict = true;
    dict_values.resize(std::min(dict_values.size(), fr.dict_keys.size()));
    fr.children = std::move(dict_values);
  } else if (type == NV::ARRAY) {
    fr.children = std::move(array_values);
  }
  return fr;
}

}  // namespace fathom
