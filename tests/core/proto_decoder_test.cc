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

TEST(ProtoDecoder, ZigZag) {
  Field f;
  f.int_value = 3;
  EXPECT_EQ(f.as_sint64(), -2);
  f.int_value = 4;
  EXPECT_EQ(f.as_sint64(), 2);
}

}  // namespace
}  // namespace fathom::proto
