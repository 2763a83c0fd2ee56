// Zero-copy protobuf wire decoder for the import hot path.
//
// Field numbers come from the generated headers of protos/ (e.g.
// protos::pbzero-free `perfetto::protos::SchedSwitchFtraceEvent::kPrevPidFieldNumber`),
// so the .proto files stay the single source of truth; only the decoding is
// hand-written, because libprotobuf's message objects allocate per field and
// would cap ingestion far below the project's throughput targets.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace fathom::proto {

enum class WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

struct Bytes {
  const uint8_t* data = nullptr;
  size_t size = 0;
  std::string_view AsString() const {
    return std::string_view(reinterpret_cast<const char*>(data), size);
  }
};

// Reads a varint at [p, end). Returns the position after it, or nullptr when
// the varint is truncated or longer than 10 bytes.
inline const uint8_t* ReadVarint(const uint8_t* p, const uint8_t* end, uint64_t* out) {
  if (p < end && *p < 0x80) {  // fast path: one byte
    *out = *p;
    return p + 1;
  }
  uint64_t value = 0;
  for (unsigned shift = 0; shift < 70 && p < end; shift += 7) {
    uint8_t byte = *p++;
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *out = value;
      return p;
    }
  }
  return nullptr;
}

// ReadVarint for a value that is most likely long, like a timestamp in
// nanoseconds (seven to nine bytes): with eight bytes at hand, the end is
// the first byte without its continuation bit and the 7-bit groups are
// packed in three mask-and-shift steps, instead of a loop step per byte.
inline const uint8_t* ReadLongVarint(const uint8_t* p, const uint8_t* end, uint64_t* out) {
  if (end - p >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);  // little-endian hosts, as the fixed64 case below
    uint64_t stops = ~w & 0x8080808080808080ull;
    if (stops) {
      unsigned bits = static_cast<unsigned>(std::countr_zero(stops)) + 1;  // 8 * bytes
      if (bits < 64) w &= (uint64_t{1} << bits) - 1;
      w = ((w & 0x7f007f007f007f00ull) >> 1) | (w & 0x007f007f007f007full);
      w = ((w & 0x3fff00003fff0000ull) >> 2) | (w & 0x00003fff00003fffull);
      w = ((w & 0x0fffffff00000000ull) >> 4) | (w & 0x000000000fffffffull);
      *out = w;
      return p + bits / 8;
    }
  }
  return ReadVarint(p, end, out);
}

struct Field {
  uint32_t id = 0;
  WireType type = WireType::kVarint;
  uint64_t int_value = 0;  // varint / fixed32 / fixed64 payload
  Bytes bytes;             // length-delimited payload

  bool valid() const { return id != 0; }
  uint64_t as_uint64() const { return int_value; }
  int64_t as_int64() const { return static_cast<int64_t>(int_value); }
  uint32_t as_uint32() const { return static_cast<uint32_t>(int_value); }
  int32_t as_int32() const { return static_cast<int32_t>(int_value); }
  bool as_bool() const { return int_value != 0; }
  int64_t as_sint64() const {
    return static_cast<int64_t>((int_value >> 1) ^ (~(int_value & 1) + 1));
  }
  int32_t as_sint32() const { return static_cast<int32_t>(as_sint64()); }
  double as_double() const {
    double d;
    memcpy(&d, &int_value, sizeof d);
    return d;
  }
  float as_float() const {
    uint32_t bits = static_cast<uint32_t>(int_value);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
  }
  std::string_view as_string() const { return bytes.AsString(); }
};

// Iterates the fields of one serialized message. Malformed input ends the
// iteration and sets error() (with the offset of the bad field), never reads
// out of bounds.
class Decoder {
 public:
  Decoder(const uint8_t* data, size_t size) : begin_(data), p_(data), end_(data + size) {}
  explicit Decoder(Bytes b) : Decoder(b.data, b.size) {}

  // Returns the next field, or an invalid Field (id 0) at the end or on error.
  Field Next() {
    Field f;
    if (p_ >= end_) return f;
    uint64_t tag;
    const uint8_t* q = ReadVarint(p_, end_, &tag);
    if (!q || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff) return Fail();
    f.id = static_cast<uint32_t>(tag >> 3);
    f.type = static_cast<WireType>(tag & 7);
    switch (f.type) {
      case WireType::kVarint:
        q = ReadVarint(q, end_, &f.int_value);
        if (!q) return Fail();
        break;
      case WireType::kFixed64:
        if (end_ - q < 8) return Fail();
        memcpy(&f.int_value, q, 8);
        q += 8;
        break;
      case WireType::kFixed32: {
        if (end_ - q < 4) return Fail();
        uint32_t v;
        memcpy(&v, q, 4);
        f.int_value = v;
        q += 4;
        break;
      }
      case WireType::kLengthDelimited: {
        uint64_t len;
        q = ReadVarint(q, end_, &len);
        if (!q || len > static_cast<uint64_t>(end_ - q)) return Fail();
        f.bytes = Bytes{q, static_cast<size_t>(len)};
        q += len;
        break;
      }
      default:
        return Fail();  // groups (3, 4) and reserved wire types are not used by Perfetto
    }
    p_ = q;
    return f;
  }

  bool error() const { return error_; }
  size_t error_offset() const { return static_cast<size_t>(p_ - begin_); }
  size_t offset() const { return static_cast<size_t>(p_ - begin_); }

 private:
  Field Fail() {
    error_ = true;
    p_ = end_;
    return Field{};
  }
  const uint8_t* begin_;
  const uint8_t* p_;
  const uint8_t* end_;
  bool error_ = false;
};

// Iterates a repeated scalar field that may be packed or not: feed it every
// occurrence of the field. For packed (length-delimited) occurrences it walks
// the varints inside.
class PackedVarints {
 public:
  explicit PackedVarints(Bytes b) : p_(b.data), end_(b.data + b.size) {}
  bool Next(uint64_t* v) {
    if (p_ >= end_) return false;
    const uint8_t* q = ReadVarint(p_, end_, v);
    if (!q) {
      error_ = true;
      p_ = end_;
      return false;
    }
    p_ = q;
    return true;
  }
  bool error() const { return error_; }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  bool error_ = false;
};

// Convenience: decode a message into a small fixed table of fields by id.
// Only the last occurrence of each id in [0, N) is kept; repeated fields must
// be iterated with Decoder. Used for small, flat messages (ftrace event
// payloads) where a switch statement per field would be noise.
template <uint32_t N>
struct FlatMessage {
  Field fields[N];
  uint64_t present = 0;  // bit i set when field i was seen (i < 64)
  bool error = false;

  explicit FlatMessage(Bytes b) {
    Decoder d(b);
    for (Field f = d.Next(); f.valid(); f = d.Next()) {
      if (f.id < N) {
        fields[f.id] = f;
        if (f.id < 64) present |= (uint64_t{1} << f.id);
      }
    }
    error = d.error();
  }
  bool has(uint32_t id) const { return id < 64 && (present >> id) & 1; }
  const Field& operator[](uint32_t id) const { return fields[id]; }
};

}  // namespace fathom::proto
