#include "core/import/proto_decoder.h"

#include <gtest/gtest.h>

#include <vector>

namespace fathom::proto {
namespace {

TEST(ProtoDecoder, ReadsEveryWireType) {
  // field 1 varint 300, field 2 "hi", field 3 fixed32 7, field 4 fixed64 9
  std::vector<uint8_t> b = {0x08, 0xAC, 0x02, 0x12, 0x02, 'h', 'i', 0x1D, 7, 0, 0,
                            0,    0x21, 9,    0,    0,    0,   0,   0,    0, 0};
  Decoder d(b.data(), b.size());
  Field f = d.Next();
  EXPECT_EQ(f.id, 1u);
  EXPECT_EQ(f.as_uint64(), 300u);
  f = d.Next();
  EXPECT_EQ(f.as_string(), "hi");
  f = d.Next();
  EXPECT_EQ(f.id, 3u);
  EXPECT_EQ(f.as_uint32(), 7u);
  f = d.Next();
  EXPECT_EQ(f.as_uint64(), 9u);
  EXPECT_FALSE(d.Next().valid());
  EXPECT_FALSE(d.error());
}

TEST(ProtoDecoder, RejectsTruncatedAndOversizedFields) {
  std::vector<uint8_t> truncated_len = {0x12, 0x05, 'a'};
  Decoder d1(truncated_len.data(), truncated_len.size());
  EXPECT_FALSE(d1.Next().valid());
  EXPECT_TRUE(d1.error());

  std::vector<uint8_t> huge_varint(12, 0xFF);
  huge_varint[0] = 0x08;
  Decoder d2(huge_varint.data(), huge_varint.size());
  EXPECT_FALSE(d2.Next().valid());
  EXPECT_TRUE(d2.error());

  std::vector<uint8_t> group = {0x0B};  // wire type 3 (start group): unsupported
  Decoder d3(group.data(), group.size());
  EXPECT_FALSE(d3.Next().valid());
  EXPECT_TRUE(d3.error());
}

// The word-at-a-time decoder for long varints must read exactly what the
// wire format says for every length, with other bytes after the varint or
// the buffer ending right there, and fail where the byte loop fails.
TEST(ProtoDecoder, LongVarintReadsEveryLength) {
  auto encode = [](uint64_t v) {
    std::vector<uint8_t> out;
    do {
      uint8_t byte = v & 0x7f;
      v >>= 7;
      out.push_back(static_cast<uint8_t>(byte | (v ? 0x80 : 0)));
    } while (v);
    return out;
  };
  for (unsigned bits = 0; bits <= 64; ++bits) {
    for (uint64_t low : {uint64_t{0}, uint64_t{1}, uint64_t{0x5a5a5a5a5a5a5a5a}, ~uint64_t{0}}) {
      uint64_t v = bits == 0 ? 0 : (low | (uint64_t{1} << (bits - 1)));
      if (bits < 64) v &= (uint64_t{1} << bits) - 1;
      std::vector<uint8_t> wire = encode(v);
      for (size_t tail : {0, 1, 7, 12}) {
        std::vector<uint8_t> b = wire;
        b.insert(b.end(), tail, 0xff);  // continuation bits set: must not be read
        uint64_t got = ~v;
        const uint8_t* end = ReadLongVarint(b.data(), b.data() + b.size(), &got);
        ASSERT_NE(end, nullptr) << "value " << v << " tail " << tail;
        EXPECT_EQ(got, v) << "tail " << tail;
        EXPECT_EQ(end - b.data(), static_cast<ptrdiff_t>(wire.size()));
        // Cut before the last byte: truncated, as ReadVarint says.
        uint64_t ignored;
        EXPECT_EQ(ReadLongVarint(b.data(), b.data() + wire.size() - 1, &ignored), nullptr);
      }
    }
  }
  std::vector<uint8_t> overlong(11, 0x80);
  overlong.back() = 0x01;
  uint64_t ignored;
  EXPECT_EQ(ReadLongVarint(overlong.data(), overlong.data() + overlong.size(), &ignored),
            ReadVarint(overlong.data(), overlong.data() + overlong.size(), &ignored));
}

TEST(ProtoDecoder, ZigZag) {
  Field f;
  f.int_value = 3;
  EXPECT_EQ(f.as_sint64(), -2);
  f.int_value = 4;
  EXPECT_EQ(f.as_sint64(), 2);
}

}  // namespace
}  // namespace fathom::proto
