// record::BuildTraceConfig for linux.inode_file_map: the preset, the options and the
// errors, checked field by field on the TraceConfig that is sent.
#include "record/trace_config_builder.h"

#include <gtest/gtest.h>

#include <string>

namespace fathom::record {
namespace {

const perfetto::protos::DataSourceConfig* Find(const perfetto::protos::TraceConfig& c,
                                               const std::string& name) {
  for (const auto& ds : c.data_sources())
    if (ds.config().name() == name) return &ds.config();
  return nullptr;
}

TEST(TraceConfigBuilderInode, PresetWritesEveryValueExplicitly) {
  RecordOptions o;
  ASSERT_TRUE(ApplyPreset("inode-map", &o).ok());
  auto c = BuildTraceConfig(o);
  ASSERT_TRUE(c.ok()) << c.status().message();
  const auto* ds = Find(*c, "linux.inode_file_map");
  ASSERT_NE(ds, nullptr);
  ASSERT_TRUE(ds->has_inode_file_config());
  const auto& i = ds->inode_file_config();
  // 0 would read as upstream's 10 s / 15000 defaults: the builder never leaves them out.
  EXPECT_EQ(i.scan_batch_size(), 15000u);
  EXPECT_EQ(i.scan_interval_ms(), 1000u);
  EXPECT_EQ(i.scan_delay_ms(), 1000u);
  EXPECT_FALSE(i.do_not_scan());
  EXPECT_EQ(i.scan_mount_points_size(), 0);
  // The text shown on the Record page is this config.
  EXPECT_NE(ConfigToText(*c).find("inode_file_config {"), std::string::npos);
  EXPECT_NE(ConfigToText(*c).find("scan_batch_size: 15000"), std::string::npos);
}

TEST(TraceConfigBuilderInode, MountPointsAndValuesCarryOver) {
  RecordOptions o;
  o.inode_file_map = true;
  o.inode_mount_points = {"/data", "/system"};
  o.inode_scan_batch_size = 500;
  o.inode_scan_interval_ms = 250;
  o.inode_scan_delay_ms = 20;
  auto c = BuildTraceConfig(o);
  ASSERT_TRUE(c.ok()) << c.status().message();
  const auto& i = Find(*c, "linux.inode_file_map")->inode_file_config();
  ASSERT_EQ(i.scan_mount_points_size(), 2);
  EXPECT_EQ(i.scan_mount_points(0), "/data");
  EXPECT_EQ(i.scan_mount_points(1), "/system");
  EXPECT_EQ(i.scan_batch_size(), 500u);
  EXPECT_EQ(i.scan_interval_ms(), 250u);
  EXPECT_EQ(i.scan_delay_ms(), 20u);
  // The text form parses back to the same config (what `--txt` and the page show).
  auto back = ParseConfig(ConfigToText(*c), /*text=*/true, "shown");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->SerializeAsString(), c->SerializeAsString());
}

TEST(TraceConfigBuilderInode, PresetKeepsTheMountPointsAndOtherPresetsDoNotAddTheSource) {
  RecordOptions o;
  o.inode_mount_points = {"/home"};
  ASSERT_TRUE(ApplyPreset("inode-map", &o).ok());
  EXPECT_EQ(o.inode_mount_points, std::vector<std::string>{"/home"});
  RecordOptions cpu;
  ASSERT_TRUE(ApplyPreset("cpu", &cpu).ok());
  auto c = BuildTraceConfig(cpu);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(Find(*c, "linux.inode_file_map"), nullptr);
}

TEST(TraceConfigBuilderInode, ZeroAndRelativeValuesAreRefused) {
  RecordOptions o;
  o.inode_file_map = true;
  o.inode_scan_batch_size = 0;
  auto c = BuildTraceConfig(o);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("batch size"), std::string::npos);
  o.inode_scan_batch_size = 10;
  o.inode_scan_delay_ms = 0;
  EXPECT_FALSE(BuildTraceConfig(o).ok());
  o.inode_scan_delay_ms = 1;
  o.inode_mount_points = {"data"};
  c = BuildTraceConfig(o);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("absolute"), std::string::npos);
}

TEST(TraceConfigBuilderInode, TheWarningNamesTheCost) {
  const std::string w = InodeFileMapWarning();
  EXPECT_NE(w.find("expensive"), std::string::npos);
  EXPECT_NE(w.find("only when needed"), std::string::npos);
  bool listed = false;
  for (const Preset& p : Presets()) listed |= p.name == "inode-map";
  EXPECT_TRUE(listed);
}

}  // namespace
}  // namespace fathom::record
