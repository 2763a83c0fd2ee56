// Appends protobuf wire bytes to a string: the few shapes the stack and pprof
// SQL functions write. Hand-written rather than libprotobuf so the field order
// on the wire is the order of the calls, which the byte-exact answers of
// EXPERIMENTAL_PROFILE need.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::proto_out {

inline void Varint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

inline void VarintField(std::string* out, uint32_t id, uint64_t v) {
  Varint(out, uint64_t{id} << 3);
  Varint(out, v);
}

inline void BytesField(std::string* out, uint32_t id, std::string_view bytes) {
  Varint(out, (uint64_t{id} << 3) | 2);
  Varint(out, bytes.size());
  out->append(bytes);
}

// A packed repeated varint field; written even when empty (length 0).
inline void PackedField(std::string* out, uint32_t id, const std::vector<uint64_t>& values) {
  std::string body;
  for (uint64_t v : values) Varint(&body, v);
  BytesField(out, id, body);
}

}  // namespace fathom::proto_out
