#include "core/sql/functions/stack_blob.h"

#include "core/import/proto_decoder.h"
#include "core/sql/functions/proto_writer.h"

namespace fathom {
namespace {

constexpr uint32_t kEntriesField = 1;

std::string Wrap(const std::string& entry) {
  std::string out;
  proto_out::BytesField(&out, kEntriesField, entry);
  return out;
}

}  // namespace

std::string EncodeStackEntry(StackEntry::Kind kind, uint64_t id) {
  std::string entry;
  proto_out::VarintField(&entry, kind, id);
  return Wrap(entry);
}

std::string EncodeStackNameEntry(std::string_view name) {
  std::string entry;
  proto_out::BytesField(&entry, StackEntry::kName, name);
  return Wrap(entry);
}

Result<std::vector<StackEntry>> DecodeStack(std::string_view blob) {
  std::vector<StackEntry> out;
  proto::Decoder d(reinterpret_cast<const uint8_t*>(blob.data()), blob.size());
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id != kEntriesField) continue;
    if (f.type != proto::WireType::kLengthDelimited) return ErrorStatus("bad Stack entry");
    StackEntry e;
    e.kind = static_cast<StackEntry::Kind>(0);
    proto::Decoder ed(f.bytes);
    for (proto::Field g = ed.Next(); g.valid(); g = ed.Next()) {
      // A oneof: the last field set wins, as in any protobuf parser.
      if (g.id == StackEntry::kName && g.type == proto::WireType::kLengthDelimited) {
        e.kind = StackEntry::kName;
        e.name = g.as_string();
      } else if (g.id >= StackEntry::kCallsite && g.id <= StackEntry::kFrame &&
                 g.type == proto::WireType::kVarint) {
        e.kind = static_cast<StackEntry::Kind>(g.id);
        e.id = g.as_uint64();
      }
    }
    if (ed.error()) return ErrorStatus("bad Stack entry");
    out.push_back(e);
  }
  if (d.error()) return ErrorStatus("bad Stack");
  return out;
}

}  // namespace fathom
