// A tiny protobuf decoder for the on-device programs (header-only, no libprotobuf).
//   ProtoReader r(bytes);
//   ProtoField f;
//   while (r.Next(&f)) { if (f.number == pf::TraceConfig::kDurationMsFieldNumber) ... }
//   if (!r.ok()) ... malformed
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace fathom::device {

struct ProtoField {
  uint32_t number = 0;
  uint32_t wire_type = 0;  // 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32
  uint64_t value = 0;      // varint/fixed value
  std::string_view bytes;  // length-delimited payload
  int64_t as_int() const { return static_cast<int64_t>(value); }
};

class ProtoReader {
 public:
  explicit ProtoReader(std::string_view data)
      : p_(reinterpret_cast<const uint8_t*>(data.data())), end_(p_ + data.size()) {}

  // False at the end or on malformed input (then ok() is false).
  bool Next(ProtoField* f) {
    if (p_ >= end_) return false;
    uint64_t tag;
    if (!Varint(&tag) || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff) return Fail();
    f->number = static_cast<uint32_t>(tag >> 3);
    f->wire_type = static_cast<uint32_t>(tag & 7);
    f->bytes = {};
    switch (f->wire_type) {
      case 0:
        return Varint(&f->value) || Fail();
      case 1:
      case 5: {
        size_t n = f->wire_type == 1 ? 8 : 4;
        if (static_cast<size_t>(end_ - p_) < n) return Fail();
        f->value = 0;
        for (size_t i = 0; i < n; i++) f->value |= uint64_t{p_[i]} << (8 * i);
        p_ += n;
        return true;
      }
      case 2: {
        uint64_t len;
        if (!Varint(&len) || len > static_cast<uint64_t>(end_ - p_)) return Fail();
        f->bytes = {reinterpret_cast<const char*>(p_), static_cast<size_t>(len)};
        p_ += len;
        return true;
      }
      default:
        return Fail();
    }
  }
  bool ok() const { return ok_; }

  // Reads one varint from the packed payload `data` at *pos; false at the end.
  static bool NextPacked(std::string_view data, size_t* pos, uint64_t* out) {
    ProtoReader r(data.substr(*pos));
    if (r.p_ >= r.end_ || !r.Varint(out)) return false;
    *pos = data.size() - static_cast<size_t>(r.end_ - r.p_);
    return true;
  }

 private:
  bool Varint(uint64_t* out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && p_ < end_; shift += 7) {
      uint8_t b = *p_++;
      v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) {
        *out = v;
        return true;
      }
    }
    return false;
  }
  bool Fail() {
    ok_ = false;
    p_ = end_;
    return false;
  }

  const uint8_t* p_;
  const uint8_t* end_;
  bool ok_ = true;
};

}  // namespace fathom::device
