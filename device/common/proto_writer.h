// A tiny protobuf encoder for the on-device programs (header-only, no libprotobuf: the
// NDK has none). Field numbers come from gen/perfetto_fields.h, e.g.
//
//   ProtoWriter w;
//   w.Varint(pf::TracePacket::kTimestampFieldNumber, ts);
//   size_t bundle = w.BeginNested(pf::TracePacket::kFtraceEventsFieldNumber);
//   w.Varint(pf::FtraceEventBundle::kCpuFieldNumber, cpu);
//   w.EndNested(bundle);
//
// Nested messages get a fixed 4-byte length that EndNested back-patches as a redundant
// (non-minimal) varint, so a message is written in one pass without computing sizes first.
// Every protobuf parser accepts redundant varints (upstream Perfetto's protozero writes
// the same form); the cost is up to 3 bytes per nested message. Limit: 2^28-1 bytes per
// nested message (a packet is far smaller).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace fathom::device {

class ProtoWriter {
 public:
  static constexpr size_t kNestedLengthBytes = 4;
  static constexpr uint32_t kMaxNestedSize = (1u << 28) - 1;

  enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

  // Unsigned and non-negative values; also bool and enum.
  void Varint(uint32_t field, uint64_t value) {
    Tag(field, kVarint);
    RawVarint(value);
  }
  // int32/int64 fields: negative values take 10 bytes, as protobuf specifies.
  void Int(uint32_t field, int64_t value) { Varint(field, static_cast<uint64_t>(value)); }
  // sint32/sint64 fields.
  void ZigZag(uint32_t field, int64_t value) {
    Varint(field, (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63));
  }
  void Bool(uint32_t field, bool value) { Varint(field, value ? 1 : 0); }
  void Fixed64(uint32_t field, uint64_t value) {
    Tag(field, kFixed64);
    RawLittleEndian(value, 8);
  }
  void Fixed32(uint32_t field, uint32_t value) {
    Tag(field, kFixed32);
    RawLittleEndian(value, 4);
  }
  void Double(uint32_t field, double value) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    Fixed64(field, bits);
  }
  void Bytes(uint32_t field, const void* data, size_t size) {
    Tag(field, kLengthDelimited);
    RawVarint(size);
    buf_.append(static_cast<const char*>(data), size);
  }
  void String(uint32_t field, std::string_view s) { Bytes(field, s.data(), s.size()); }

  // Packed repeated varints from any range of integers (negative int32/int64 → 10 bytes).
  template <typename Range>
  void PackedVarints(uint32_t field, const Range& values) {
    if (values.begin() == values.end()) return;
    size_t token = BeginNested(field);
    for (auto v : values) RawVarint(static_cast<uint64_t>(static_cast<int64_t>(v)));
    EndNested(token);
  }

  // Starts a length-delimited submessage; returns a token for EndNested. Tokens are
  // offsets, so they survive buffer growth; nest freely, end in reverse order.
  size_t BeginNested(uint32_t field) {
    Tag(field, kLengthDelimited);
    size_t token = buf_.size();
    buf_.append(kNestedLengthBytes, '\0');
    return token;
  }
  // Returns false when the submessage exceeded kMaxNestedSize (the output is then invalid).
  bool EndNested(size_t token) {
    size_t size = buf_.size() - token - kNestedLengthBytes;
    if (size > kMaxNestedSize) return false;
    for (size_t i = 0; i < kNestedLengthBytes; i++) {
      uint8_t byte = static_cast<uint8_t>((size >> (7 * i)) & 0x7f);
      if (i + 1 < kNestedLengthBytes) byte |= 0x80;
      buf_[token + i] = static_cast<char>(byte);
    }
    return true;
  }

  // Appends bytes that are already a serialized field (or fields) of this message.
  void Raw(std::string_view bytes) { buf_.append(bytes); }
  void RawVarint(uint64_t value) {
    char tmp[10];
    size_t n = 0;
    while (value >= 0x80) {
      tmp[n++] = static_cast<char>((value & 0x7f) | 0x80);
      value >>= 7;
    }
    tmp[n++] = static_cast<char>(value);
    buf_.append(tmp, n);
  }

  const std::string& data() const { return buf_; }
  std::string& mutable_data() { return buf_; }
  size_t size() const { return buf_.size(); }
  bool empty() const { return buf_.empty(); }
  // Keeps the capacity, so a writer reused per packet stops allocating.
  void Clear() { buf_.clear(); }

 private:
  void Tag(uint32_t field, WireType type) { RawVarint((uint64_t{field} << 3) | type); }
  void RawLittleEndian(uint64_t value, int bytes) {
    char tmp[8];
    for (int i = 0; i < bytes; i++) tmp[i] = static_cast<char>((value >> (8 * i)) & 0xff);
    buf_.append(tmp, bytes);
  }

  std::string buf_;
};

}  // namespace fathom::device
