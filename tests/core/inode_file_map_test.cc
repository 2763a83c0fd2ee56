// InodeFileMap packets (linux.inode_file_map) as trace_processor_shell v58.2 imports them:
// not at all. It fills no table, counts no stat and its packets' timestamps do not widen
// trace_bounds. Expected values come from the oracle on the same trace (protoc --encode of
// the equivalent textproto); Fathom keeps the same answers.
#include <gtest/gtest.h>

#include <string>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

using fathom::testing::AsBytes;
using perfetto::protos::InodeFileMap;

std::string InodeTrace() {
  perfetto::protos::Trace t;
  auto* p = t.add_packet();
  p->set_trusted_packet_sequence_id(1);
  p->set_timestamp(1000);
  InodeFileMap* m = p->mutable_inode_file_map();
  m->set_block_device_id(2049);
  m->add_mount_points("/");
  m->add_mount_points("/system");
  auto* e = m->add_entries();
  e->set_inode_number(12);
  e->add_paths("/etc/a.xml");
  e->add_paths("/etc/b.xml");
  e->set_type(InodeFileMap::Entry::FILE);
  e = m->add_entries();
  e->set_inode_number(13);
  e->add_paths("/etc");
  e->set_type(InodeFileMap::Entry::DIRECTORY);
  m->add_entries()->set_inode_number(14);
  p = t.add_packet();
  p->set_trusted_packet_sequence_id(1);
  p->set_timestamp(5000);
  auto* mem = p->mutable_sys_stats()->add_meminfo();
  mem->set_key(perfetto::protos::MEMINFO_MEM_FREE);
  mem->set_value(42);
  p = t.add_packet();
  p->set_trusted_packet_sequence_id(1);
  p->set_timestamp(9000);
  m = p->mutable_inode_file_map();
  m->set_block_device_id(2050);
  e = m->add_entries();
  e->set_inode_number(99);
  e->add_paths("x");
  e->set_type(InodeFileMap::Entry::FILE);
  t.add_packet()->mutable_inode_file_map();  // empty, no timestamp
  return t.SerializeAsString();
}

int64_t Int(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  EXPECT_TRUE(it->NextResultSet() && it->NextRow()) << sql << ": " << it->status().message();
  return it->Get(0).i;
}

TEST(InodeFileMap, IgnoredAsUpstreamDoes) {
  const std::string bytes = InodeTrace();
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadBuffer(AsBytes(bytes), bytes.size()).ok());
  // Oracle: 5000,5001,0,1,3 (only the sys_stats packet counts for the bounds).
  EXPECT_EQ(Int(tp, "select start_ts from trace_bounds"), 5000);
  EXPECT_EQ(Int(tp, "select end_ts from trace_bounds"), 5001);
  EXPECT_EQ(Int(tp, "select count(*) from stats where value > 0 and source != 'analysis'"), 0);
  EXPECT_EQ(Int(tp, "select count(*) from counter"), 1);
  // trace_time_clock_id is left out: Fathom writes it for any trace without a clock
  // snapshot and upstream does not, with or without InodeFileMap packets (a separate gap).
  EXPECT_EQ(Int(tp, "select count(*) from metadata where name != 'trace_time_clock_id'"), 3);
}

}  // namespace
}  // namespace fathom
