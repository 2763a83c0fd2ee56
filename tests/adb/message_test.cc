#include "adb/message.h"

#include <gtest/gtest.h>

namespace fathom::adb {
namespace {

// The host CNXN the v29 Google client sent (spec §4), byte for byte.
TEST(MessageTest, EncodesGoogleHostCnxnExactly) {
  const std::string banner =
      "host::features=remount_shell,abb_exec,abb,apex,fixed_push_mkdir,ls_v2,stat_v2,"
      "fixed_push_symlink_timestamp,cmd,shell_v2";
  std::string bytes =
      EncodeMessage(Message::Make(kCmdCnxn, 0x01000001, 0x00100000, banner), kVersionMin);
  const unsigned char want[] = {0x43, 0x4e, 0x58, 0x4e, 0x01, 0x00, 0x00, 0x01,
                                0x00, 0x00, 0x10, 0x00, 0x77, 0x00, 0x00, 0x00,
                                0x40, 0x2e, 0x00, 0x00, 0xbc, 0xb1, 0xa7, 0xb1};
  ASSERT_EQ(bytes.size(), 24 + banner.size());
  EXPECT_EQ(bytes.substr(0, 24), std::string(reinterpret_cast<const char*>(want), 24));
  EXPECT_EQ(bytes.substr(24), banner);
}

TEST(MessageTest, ChecksumOnlyBeforeSkipChecksumVersion) {
  Message m = Message::Make(kCmdWrte, 1, 2, "\xff\x01");
  EXPECT_EQ(GetU32(EncodeHeader(m, kVersionMin), 16), 0x100u);
  EXPECT_EQ(GetU32(EncodeHeader(m, kVersionSkipChecksum), 16), 0u);
  EXPECT_TRUE(NeedsChecksum(kVersionMin));
  EXPECT_FALSE(NeedsChecksum(kVersion));
}

TEST(MessageTest, ChecksumWraps) {
  std::string big(0x01010101, '\xff');  // 255 * 16843009 overflows 32 bits
  EXPECT_EQ(PayloadChecksum(big), static_cast<uint32_t>(255ull * 0x01010101ull));
}

TEST(MessageTest, DecodeRoundTripAndValidation) {
  Message m = Message::Make(kCmdOpen, 7, 0, std::string("shell:ls\0", 9));
  std::string bytes = EncodeMessage(m, kVersion);
  auto h = DecodeHeader(bytes, kMaxPayload);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->command, kCmdOpen);
  EXPECT_EQ(h->arg0, 7u);
  EXPECT_EQ(h->data_length, 9u);

  EXPECT_FALSE(DecodeHeader(bytes, 8).ok());  // payload over the negotiated limit
  std::string bad = bytes;
  bad[20] ^= 1;  // magic
  EXPECT_FALSE(DecodeHeader(bad, kMaxPayload).ok());
  EXPECT_FALSE(DecodeHeader(bytes.substr(0, 23), kMaxPayload).ok());
  // A wrong checksum is accepted (modern adb never verifies; spec §1).
  std::string wrong_sum = EncodeMessage(m, kVersionMin);
  wrong_sum[16] ^= 0x55;
  EXPECT_TRUE(DecodeHeader(wrong_sum, kMaxPayload).ok());
}

TEST(MessageTest, CommandNamesAndFourCc) {
  EXPECT_EQ(CommandName(kCmdAuth), "AUTH");
  EXPECT_EQ(CommandName(0x12345678), "0x12345678");
  EXPECT_EQ(FourCc("CNXN"), kCmdCnxn);
  EXPECT_EQ(FourCc("STLS"), kCmdStls);
  EXPECT_EQ(FourCc("SYNC"), kCmdSync);
}

}  // namespace
}  // namespace fathom::adb
