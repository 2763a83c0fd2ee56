#include "core/import/proto_to_args.h"

#include <google/protobuf/descriptor.h>

#include <cstring>
#include <unordered_map>

namespace fathom {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

// Wire type a field of this declared type is written with when not packed.
proto::WireType ExpectedWireType(FieldDescriptor::Type t) {
  switch (t) {
    case FieldDescriptor::TYPE_DOUBLE:
    case FieldDescriptor::TYPE_FIXED64:
    case FieldDescriptor::TYPE_SFIXED64:
      return proto::WireType::kFixed64;
    case FieldDescriptor::TYPE_FLOAT:
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_SFIXED32:
      return proto::WireType::kFixed32;
    case FieldDescriptor::TYPE_STRING:
    case FieldDescriptor::TYPE_BYTES:
    case FieldDescriptor::TYPE_MESSAGE:
    case FieldDescriptor::TYPE_GROUP:
      return proto::WireType::kLengthDelimited;
    default:
      return proto::WireType::kVarint;
  }
}

// Adds one scalar value (raw wire payload `v`) under `key` with the arg type
// upstream gives the declared type: signed -> int, unsigned -> uint.
void AddScalar(const FieldDescriptor* fd, uint64_t v, const std::string& key,
               ArgsTracker::Builder& out) {
  switch (fd->type()) {
    case FieldDescriptor::TYPE_INT32:
    case FieldDescriptor::TYPE_SFIXED32:
    case FieldDescriptor::TYPE_ENUM:
      out.AddInt(key, static_cast<int32_t>(v));
      return;
    case FieldDescriptor::TYPE_INT64:
    case FieldDescriptor::TYPE_SFIXED64:
      out.AddInt(key, static_cast<int64_t>(v));
      return;
    case FieldDescriptor::TYPE_SINT32:
    case FieldDescriptor::TYPE_SINT64: {
      proto::Field f;
      f.int_value = v;
      out.AddInt(key, fd->type() == FieldDescriptor::TYPE_SINT32 ? f.as_sint32() : f.as_sint64());
      return;
    }
    case FieldDescriptor::TYPE_UINT32:
    case FieldDescriptor::TYPE_FIXED32:
      out.AddUint(key, static_cast<uint32_t>(v));
      return;
    case FieldDescriptor::TYPE_UINT64:
    case FieldDescriptor::TYPE_FIXED64:
      out.AddUint(key, v);
      return;
    case FieldDescriptor::TYPE_BOOL:
      out.AddBool(key, v != 0);
      return;
    case FieldDescriptor::TYPE_FLOAT: {
      proto::Field f;
      f.int_value = v;
      out.AddReal(key, f.as_float());
      return;
    }
    case FieldDescriptor::TYPE_DOUBLE: {
      proto::Field f;
      f.int_value = v;
      out.AddReal(key, f.as_double());
      return;
    }
    default:
      return;
  }
}

// "[i]" after a repeated field's name.
void AppendIndex(std::string* key, uint32_t i) {
  key->push_back('[');
  key->append(std::to_string(i));
  key->push_back(']');
}

// Walks a packed run of scalars (repeated numeric field written as one LEN).
bool AddPacked(const FieldDescriptor* fd, proto::Bytes b, const std::string& base, uint32_t* index,
               ArgsTracker::Builder& out) {
  const uint8_t* p = b.data;
  const uint8_t* end = b.data + b.size;
  proto::WireType wt = ExpectedWireType(fd->type());
  while (p < end) {
    uint64_t v = 0;
    if (wt == proto::WireType::kVarint) {
      p = proto::ReadVarint(p, end, &v);
      if (!p) return false;
    } else {
      size_t n = wt == proto::WireType::kFixed64 ? 8 : 4;
      if (static_cast<size_t>(end - p) < n) return false;
      memcpy(&v, p, n);  // little-endian host, as the decoder assumes
      p += n;
    }
    std::string key = base;
    AppendIndex(&key, (*index)++);
    AddScalar(fd, v, key, out);
  }
  return true;
}

}  // namespace

bool ProtoToArgs(const Descriptor* desc, proto::Bytes msg, ArgsTracker::Builder& out,
                 std::string_view prefix) {
  // Index of the next element of each repeated field of this message.
  std::unordered_map<uint32_t, uint32_t> next_index;
  proto::Decoder d(msg);
  bool ok = true;
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    const FieldDescriptor* fd = desc->FindFieldByNumber(static_cast<int>(f.id));
    if (!fd) continue;
    std::string key = prefix.empty() ? std::string() : std::string(prefix) + ".";
    key += fd->name();
    proto::WireType expected = ExpectedWireType(fd->type());
    if (fd->is_repeated() && f.type == proto::WireType::kLengthDelimited &&
        expected != proto::WireType::kLengthDelimited) {
      ok &= AddPacked(fd, f.bytes, key, &next_index[f.id], out);
      continue;
    }
    if (f.type != expected) continue;
    if (fd->is_repeated()) AppendIndex(&key, next_index[f.id]++);
    switch (fd->type()) {
      case FieldDescriptor::TYPE_MESSAGE:
        ok &= ProtoToArgs(fd->message_type(), f.bytes, out, key);
        break;
      case FieldDescriptor::TYPE_STRING:
      case FieldDescriptor::TYPE_BYTES:
        out.AddString(key, f.as_string());
        break;
      default:
        AddScalar(fd, f.int_value, key, out);
    }
  }
  return ok && !d.error();
}

}  // namespace fathom
