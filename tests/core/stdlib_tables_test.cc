// Tables and functions the standard library reads, beyond the slice and
// sched basics: package_list and _intrinsic_package_lookup, the flow walks
// (FOLLOWING_FLOW, ...), _linux_interrupt_mapping, systemd journal logs and
// the track-event track types and groups. Every expected row comes from
// upstream's trace processor (v58.2) on the same traces.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

using fathom::testing::TestVarint;

std::string Encode(const char* textproto) {
  perfetto::protos::Trace trace;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(textproto, &trace));
  return trace.SerializeAsString();
}

// Hand-encoded fields, for packets Fathom's protos do not carry.
std::string Tag(uint32_t field, uint32_t wire) { return TestVarint((field << 3) | wire); }
std::string Int(uint32_t field, uint64_t v) { return Tag(field, 0) + TestVarint(v); }
std::string Len(uint32_t field, const std::string& bytes) {
  return Tag(field, 2) + TestVarint(bytes.size()) + bytes;
}

// The rows of the last result set of `sql`, as "a,b;c,d;" (NULL as "NULL").
std::string Rows(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  std::string out;
  while (it->NextResultSet()) {
    out.clear();
    while (it->NextRow()) {
      for (int i = 0; i < it->column_count(); ++i) {
        const SqlValue v = it->Get(i);
        if (i) out += ",";
        if (v.type == SqlValue::kNull) out += "NULL";
        if (v.type == SqlValue::kInt) out += std::to_string(v.i);
        if (v.type == SqlValue::kString) out += std::string(v.s);
      }
      out += ";";
    }
  }
  EXPECT_TRUE(it->status().ok()) << it->status().message();
  return out;
}

void Load(TraceProcessor& tp, const std::string& bytes) {
  ASSERT_TRUE(tp.LoadBuffer(fathom::testing::AsBytes(bytes), bytes.size()).ok());
}

TEST(StdlibTables, PackageListKeepsTheFirstEntryOfAName) {
  TraceProcessor tp;
  Load(tp, Encode(R"(packet { timestamp: 0 packages_list {
    packages { name: "zzz" uid: 10016 }
    packages { name: "com.google.android.gms" uid: 10016 }
    packages { name: "zzz" uid: 10018 version_code: 7 debuggable: true } } })"));
  EXPECT_EQ(Rows(tp, "select id, package_name, uid, debuggable, version_code from package_list"),
            "0,zzz,10016,0,0;1,com.google.android.gms,10016,0,0;");
}

TEST(StdlibTables, PackageLookupPrefersGmsAndAvoidsProviders) {
  TraceProcessor tp;
  Load(tp, Encode(R"(packet { timestamp: 0 packages_list {
    packages { name: "b.pkg" uid: 10010 }
    packages { name: "a.pkg" uid: 10010 }
    packages { name: "com.android.providers.x" uid: 10011 }
    packages { name: "z.pkg" uid: 10011 }
    packages { name: "zzz" uid: 10040 }
    packages { name: "com.google.android.gms" uid: 10040 }
    packages { name: "xcom.android.providers.q" uid: 10070 }
    packages { name: "yy" uid: 10070 }
    packages { name: "y2" uid: 50001 }
    packages { name: "p1" uid: 1110020 }
    packages { name: "x" uid: 1000 } } })"));
  EXPECT_EQ(Rows(tp,
                 "select uid, _intrinsic_package_lookup(uid) from (select 10010 as uid union all "
                 "select 10011 union all select 10040 union all select 10070 union all "
                 "select 1110010 union all select 50001 union all select 50002 union all "
                 "select 99000 union all select 1110020 union all select 1000 union all "
                 "select 1 union all select 2000 union all select 101000 union all select -5 "
                 "union all select null)"),
            "10010,b.pkg;10011,z.pkg;10040,com.google.android.gms;"
            "10070,xcom.android.providers.q;1110010,b.pkg;50001,y2;50002,SHARED_GID;"
            "99000,ISOLATED_UID;1110020,uid=1110020;1000,AID_SYSTEM_USER;1,uid=1;"
            "2000,AID_SHELL;101000,AID_SYSTEM_USER;-5,uid=4294967291;NULL,NULL;");
}

// Slices 0..10 of upstream's stdlib_dynamic_tables/connected_flow shape: a
// flow tree with nesting (5 under 4, 8 under 7).
constexpr char kFlows[] = R"(
packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 1 name: "t1" } }
packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 2 name: "t2" } }
packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 3 name: "t3" } }
packet { trusted_packet_sequence_id: 1 timestamp: 100 track_event { type: TYPE_SLICE_BEGIN track_uuid: 1 name: "s0" flow_ids: 1 } }
packet { trusted_packet_sequence_id: 1 timestamp: 110 track_event { type: TYPE_SLICE_END track_uuid: 1 } }
packet { trusted_packet_sequence_id: 1 timestamp: 120 track_event { type: TYPE_SLICE_BEGIN track_uuid: 2 name: "s1" flow_ids: 1 flow_ids: 2 } }
packet { trusted_packet_sequence_id: 1 timestamp: 125 track_event { type: TYPE_SLICE_BEGIN track_uuid: 2 name: "s1child" flow_ids: 3 } }
packet { trusted_packet_sequence_id: 1 timestamp: 126 track_event { type: TYPE_SLICE_END track_uuid: 2 } }
packet { trusted_packet_sequence_id: 1 timestamp: 130 track_event { type: TYPE_SLICE_END track_uuid: 2 } }
packet { trusted_packet_sequence_id: 1 timestamp: 140 track_event { type: TYPE_SLICE_BEGIN track_uuid: 3 name: "s2" terminating_flow_ids: 2 } }
packet { trusted_packet_sequence_id: 1 timestamp: 150 track_event { type: TYPE_SLICE_END track_uuid: 3 } }
packet { trusted_packet_sequence_id: 1 timestamp: 160 track_event { type: TYPE_SLICE_BEGIN track_uuid: 1 name: "s3" terminating_flow_ids: 3 } }
packet { trusted_packet_sequence_id: 1 timestamp: 170 track_event { type: TYPE_SLICE_END track_uuid: 1 } }
)";

TEST(StdlibTables, FlowWalks) {
  TraceProcessor tp;
  Load(tp, Encode(kFlows));
  const std::string names =
      "select so.name || '>' || si.name from %s(%d) c join slice so on so.id = c.slice_out "
      "join slice si on si.id = c.slice_in order by 1";
  auto q = [&](const char* fn, const char* slice) {
    std::string sql = names;
    sql.replace(sql.find("%s"), 2, fn);
    sql.replace(sql.find("%d"), 2,
                std::string("(select id from slice where name = '") + slice + "')");
    return Rows(tp, sql);
  };
  EXPECT_EQ(q("following_flow", "s0"), "s0>s1;s1>s2;s1child>s3;");
  EXPECT_EQ(q("following_flow", "s1child"), "s1child>s3;");
  EXPECT_EQ(q("preceding_flow", "s3"), "s0>s1;s1child>s3;");
  EXPECT_EQ(q("preceding_flow", "s2"), "s0>s1;s1>s2;");
  EXPECT_EQ(q("directly_connected_flow", "s2"), "s0>s1;s1>s2;");
  EXPECT_EQ(q("directly_connected_flow", "s1child"), "s1child>s3;");
  EXPECT_EQ(Rows(tp, "select count(*) from following_flow(null)"), "0;");
  auto it = tp.Query("select * from following_flow(100)");
  EXPECT_FALSE(it->NextResultSet());
}

TEST(StdlibTables, InterruptMappingsInFileOrderFirstNameStands) {
  auto mapping = [](std::optional<uint64_t> irq, std::optional<std::string> name) {
    std::string m;
    if (irq) m += Int(1, *irq);
    if (name) m += Len(2, *name);
    return Len(1, m);
  };
  // Packet at ts 1000 first in the file, then one at ts 500.
  const std::string bytes =
      Len(1, Int(8, 1000) + Len(130, mapping(9, "vgic") + mapping(9, "vgic2") + mapping(10, "") +
                                         mapping(std::nullopt, "x"))) +
      Len(1, Int(8, 500) +
                 Len(130, mapping(9, "other") + mapping(11, "b") + mapping(12, std::nullopt)));
  TraceProcessor tp;
  Load(tp, bytes);
  EXPECT_EQ(Rows(tp, "select id, irq_id, name, machine_id from _linux_interrupt_mapping"),
            "0,9,vgic,0;1,10,,0;2,11,b,0;");
}

TEST(StdlibTables, JournaldEntriesAreLogsAndCountersAreStats) {
  auto packet = [](uint64_t ts, const std::string& body) {
    return Len(1, Int(8, ts) + Len(132, body));
  };
  const std::string bytes =
      packet(100, Len(7, "only msg")) + packet(200, Int(1, 7)) +
      packet(300, Int(1, 8) + Int(2, 9) + Len(6, "tg")) +
      packet(400, Int(20, 5) + Len(7, "with stats")) + packet(500, Int(20, 3) + Int(21, 2)) +
      packet(600, Int(1, 42) + Int(3, 1000) + Int(5, 6) + Len(7, "hello") + Len(8, "myapp") +
                      Len(10, "myapp.service") + Len(11, "myhost") + Len(12, "journal")) +
      packet(50, Len(7, "early"));
  TraceProcessor tp;
  Load(tp, bytes);
  EXPECT_EQ(Rows(tp,
                 "select l.ts, t.tid, l.prio, l.log_source, l.tag, l.msg, "
                 "extract_arg(l.arg_set_id, 'uid'), extract_arg(l.arg_set_id, 'systemd_unit') "
                 "from logs l left join thread t using (utid) order by l.ts"),
            "50,NULL,0,systemd_journald,NULL,early,NULL,NULL;"
            "100,NULL,0,systemd_journald,NULL,only msg,NULL,NULL;"
            "200,7,0,systemd_journald,NULL,NULL,NULL,NULL;"
            "300,9,0,systemd_journald,tg,NULL,NULL,NULL;"
            "600,42,6,systemd_journald,NULL,hello,1000,myapp.service;");
  EXPECT_EQ(Rows(tp, "select count(*) from android_logs"), "0;");
  EXPECT_EQ(
      Rows(tp, "select name, value from stats where name glob 'systemd_journal_*' order by name"),
      "systemd_journal_num_failed,2;systemd_journal_num_total,3;");
}

TEST(StdlibTables, TrackEventTrackTypesAndGroups) {
  TraceProcessor tp;
  Load(tp, Encode(R"(
packet { track_descriptor { uuid: 1 name: "G1" } }
packet { track_descriptor { uuid: 2 name: "Gc" counter {} } }
packet { track_descriptor { uuid: 4 name: "G1" sibling_merge_behavior: SIBLING_MERGE_BEHAVIOR_NONE } }
packet { track_descriptor { uuid: 10 process { pid: 5 process_name: "p" } } }
packet { track_descriptor { uuid: 11 parent_uuid: 10 name: "pc" } }
packet { track_descriptor { uuid: 13 parent_uuid: 10 name: "pcnt" counter {} } }
packet { track_descriptor { uuid: 20 thread { pid: 5 tid: 6 thread_name: "t" } } }
packet { track_descriptor { uuid: 21 parent_uuid: 20 name: "tc" } }
packet { track_descriptor { uuid: 23 parent_uuid: 11 name: "nested" } }
packet { track_descriptor { uuid: 30 thread { pid: 5 tid: 7 } disallow_merging_with_system_tracks: true } }
packet { track_descriptor { uuid: 40 sibling_merge_behavior: SIBLING_MERGE_BEHAVIOR_BY_SIBLING_MERGE_KEY sibling_merge_key: "k1" name: "K" } }
packet { timestamp: 100 trusted_packet_sequence_id: 1 track_event { type: TYPE_INSTANT track_uuid: 1 name: "e" } }
packet { timestamp: 100 trusted_packet_sequence_id: 1 track_event { type: TYPE_INSTANT track_uuid: 4 name: "e" } }
packet { timestamp: 100 trusted_packet_sequence_id: 1 track_event { type: TYPE_COUNTER track_uuid: 2 counter_value: 3 } }
packet { timestamp: 100 trusted_packet_sequence_id: 1 track_event { type: TYPE_INSTANT track_uuid: 10 name: "e" } }
packet { timestamp: 100 trusted_packet_sequence_id: 1 track_event { type: TYPE_INSTANT track_uuid: 11 name: "e" } }
packet { timestamp: 100 trusted_packet_sequence_id: 1 track_event { type: TYPE_COUNTER track_uuid: 13 counter_value: 3 } }
packet { timestamp: 100 trusted_packet_sequence_id: 1 track_event { type: TYPE_INSTANT track_uuid: 20 name: "e" } }
packet { timestamp: 100 trusted_packet_sequence_id: 1 track_event { type: TYPE_INSTANT track_uuid: 21 name: "e" } }
packet { timestamp: 100 trusted_packet_sequence_id: 1 track_event { type: TYPE_INSTANT track_uuid: 23 name: "e" } }
packet { timestamp: 100 trusted_packet_sequence_id: 1 track_event { type: TYPE_INSTANT track_uuid: 30 name: "e" } }
packet { timestamp: 100 trusted_packet_sequence_id: 1 track_event { type: TYPE_INSTANT track_uuid: 40 name: "e" } }
)"));
  EXPECT_EQ(Rows(tp, "select coalesce(name, '-'), type, track_group_id from track order by id"),
            "G1,global_merged_track_event,0;"
            "G1,global_track_event,NULL;"
            "Gc,global_counter_track_event,NULL;"
            "-,process_track_event,NULL;"
            "pc,process_merged_track_event,1;"
            "pcnt,process_counter_track_event,NULL;"
            "-,thread_execution,NULL;"
            "tc,thread_merged_track_event,2;"
            "nested,process_merged_track_event,3;"
            "-,thread_track_event,NULL;"
            "K,global_merged_track_event,4;");
}

}  // namespace
}  // namespace fathom
