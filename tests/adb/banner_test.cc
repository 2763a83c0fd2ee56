#include "adb/banner.h"

#include <gtest/gtest.h>

namespace fathom::adb {
namespace {

TEST(BannerTest, ParsesDeviceBanner) {
  Banner b = ParseBanner(
      "device::ro.product.name=sunfish;ro.product.model=Pixel 4a;ro.product.device=sunfish;"
      "features=shell_v2,cmd,stat_v2,ls_v2;");
  EXPECT_EQ(b.type, "device");
  EXPECT_EQ(b.serial, "");
  EXPECT_EQ(b.product(), "sunfish");
  EXPECT_EQ(b.model(), "Pixel 4a");
  EXPECT_EQ(b.device(), "sunfish");
  EXPECT_TRUE(b.Has("shell_v2"));
  EXPECT_TRUE(b.Has("ls_v2"));
  EXPECT_FALSE(b.Has("delayed_ack"));
  EXPECT_EQ(b.features.size(), 4u);
}

TEST(BannerTest, LenientWithOddInput) {
  Banner b = ParseBanner(std::string("recovery:SER:x=1:2;novalue;\0", 28));
  EXPECT_EQ(b.type, "recovery");
  EXPECT_EQ(b.serial, "SER");
  EXPECT_EQ(b.Prop("x"), "1:2");  // ':' inside a value survives
  EXPECT_TRUE(b.features.empty());
  EXPECT_EQ(ParseBanner("weird::").type, "host");  // unknown type ⇒ host, as adb does
  EXPECT_EQ(ParseBanner("").type, "host");
  EXPECT_EQ(ParseBanner("device").type, "device");
}

TEST(BannerTest, HostBannerListsFeatures) {
  EXPECT_EQ(HostBanner({"shell_v2", "cmd"}), "host::features=cmd,shell_v2");
  Banner b = ParseBanner(HostBanner(HostFeatures()));
  EXPECT_EQ(b.type, "host");
  EXPECT_EQ(b.features, HostFeatures());
  EXPECT_LT(HostBanner(HostFeatures()).size(), 4096u);  // CNXN must fit before negotiation
}

}  // namespace
}  // namespace fathom::adb
