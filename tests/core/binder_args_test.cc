// Binder slices carry upstream's args: the sending event's fields (flags and
// code spelled out), the receiving thread on the call, the reply's own
// fields on the callee's slice, one shared set for both oneway instants.
// Input: tests/core/ftrace/binder_args.textproto (protoc-encoded at build
// time); every expected row is trace_processor_shell v58.2's answer on it.
#include "core/import/binder_args.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/trace_processor.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

struct Row {
  int64_t id, ts, dur;
  const char* name;
  int64_t tid;
  const char* args;  // key=value:type in args order, " | " between
};

// From the oracle on binder_args.textproto (query in SliceArgs below).
const Row kExpected[] = {
    {0, 1000, 600, "binder transaction", 101,
     "transaction id=10:int | destination node=5:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x10 allow replies with file descriptors; :string | code=0x01 "
     "Java Layer Dependent:string | calling tid=101:uint | destination thread=201:uint | "
     "destination name=server-main:string"},
    {1, 1100, 400, "binder reply", 201,
     "destination thread=101:int | destination name=client-main:string | transaction id=11:int | "
     "destination node=0:int | destination process=100:int | reply transaction?=1:bool | "
     "flags=0x00 No Flags Set:string | code=0x00 Java Layer Dependent:string | calling "
     "tid=201:uint"},
    {2, 2000, 0, "binder transaction async", 101,
     "transaction id=12:int | destination node=6:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x11 this is a one-way call: async, no return; allow replies "
     "with file descriptors; :string | code=0x5f4e5446 Java Layer Dependent:string | calling "
     "tid=101:uint"},
    {3, 2100, 0, "binder async rcv", 202,
     "transaction id=12:int | destination node=6:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x11 this is a one-way call: async, no return; allow replies "
     "with file descriptors; :string | code=0x5f4e5446 Java Layer Dependent:string | calling "
     "tid=101:uint"},
    {4, 3000, 150, "binder transaction", 102,
     "transaction id=20:int | destination node=7:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x04 contents are the components root object; :string | "
     "code=0x5f504e47 Java Layer Dependent:string | calling tid=102:uint | destination "
     "thread=203:uint | destination name=server-w:string"},
    {5, 3050, 50, "binder reply", 203,
     "destination thread=102:int | destination name=client-b:string | transaction id=21:int | "
     "destination node=0:int | destination process=100:int | reply transaction?=1:bool | "
     "flags=0x04 contents are the components root object; :string | code=0x5f504e47 Java Layer "
     "Dependent:string | calling tid=203:uint"},
    {6, 3200, 150, "binder transaction", 102,
     "transaction id=22:int | destination node=7:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x08 contents are a 32-bit status code; :string | "
     "code=0x5f444d50 Java Layer Dependent:string | calling tid=102:uint | destination "
     "thread=203:uint | destination name=server-w:string"},
    {7, 3250, 50, "binder reply", 203,
     "destination thread=102:int | destination name=client-b:string | transaction id=23:int | "
     "destination node=0:int | destination process=100:int | reply transaction?=1:bool | "
     "flags=0x08 contents are a 32-bit status code; :string | code=0x5f444d50 Java Layer "
     "Dependent:string | calling tid=203:uint"},
    {8, 3400, 0, "binder transaction async", 102,
     "transaction id=24:int | destination node=7:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x1f this is a one-way call: async, no return; contents are the "
     "components root object; contents are a 32-bit status code; allow replies with file "
     "descriptors; :string | code=0x5f434d44 Java Layer Dependent:string | calling tid=102:uint"},
    {9, 3450, 0, "binder async rcv", 203,
     "transaction id=24:int | destination node=7:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x1f this is a one-way call: async, no return; contents are the "
     "components root object; contents are a 32-bit status code; allow replies with file "
     "descriptors; :string | code=0x5f434d44 Java Layer Dependent:string | calling tid=102:uint"},
    {10, 3600, 150, "binder transaction", 102,
     "transaction id=25:int | destination node=7:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x20 :string | code=0x5f535052 Java Layer Dependent:string | "
     "calling tid=102:uint | destination thread=203:uint | destination name=server-w:string"},
    {11, 3650, 50, "binder reply", 203,
     "destination thread=102:int | destination name=client-b:string | transaction id=26:int | "
     "destination node=0:int | destination process=100:int | reply transaction?=1:bool | "
     "flags=0x20 :string | code=0x5f535052 Java Layer Dependent:string | calling tid=203:uint"},
    {12, 3800, 150, "binder transaction", 102,
     "transaction id=27:int | destination node=7:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x0c contents are the components root object; contents are a "
     "32-bit status code; :string | code=0x5f4e5446 Java Layer Dependent:string | calling "
     "tid=102:uint | destination thread=203:uint | destination name=server-w:string"},
    {13, 3850, 50, "binder reply", 203,
     "destination thread=102:int | destination name=client-b:string | transaction id=28:int | "
     "destination node=0:int | destination process=100:int | reply transaction?=1:bool | "
     "flags=0x0c contents are the components root object; contents are a 32-bit status code; "
     ":string | code=0x5f4e5446 Java Layer Dependent:string | calling tid=203:uint"},
    {14, 4000, 150, "binder transaction", 102,
     "transaction id=29:int | destination node=7:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x14 contents are the components root object; allow replies with "
     "file descriptors; :string | code=0x5f494e54 Java Layer Dependent:string | calling "
     "tid=102:uint | destination thread=203:uint | destination name=server-w:string"},
    {15, 4050, 50, "binder reply", 203,
     "destination thread=102:int | destination name=client-b:string | transaction id=30:int | "
     "destination node=0:int | destination process=100:int | reply transaction?=1:bool | "
     "flags=0x14 contents are the components root object; allow replies with file descriptors; "
     ":string | code=0x5f494e54 Java Layer Dependent:string | calling tid=203:uint"},
    {16, 4200, 150, "binder transaction", 102,
     "transaction id=31:int | destination node=7:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x18 contents are a 32-bit status code; allow replies with file "
     "descriptors; :string | code=0x5f535052 Java Layer Dependent:string | calling tid=102:uint | "
     "destination thread=203:uint | destination name=server-w:string"},
    {17, 4250, 50, "binder reply", 203,
     "destination thread=102:int | destination name=client-b:string | transaction id=32:int | "
     "destination node=0:int | destination process=100:int | reply transaction?=1:bool | "
     "flags=0x18 contents are a 32-bit status code; allow replies with file descriptors; :string | "
     "code=0x5f535052 Java Layer Dependent:string | calling tid=203:uint"},
    {18, 4400, 150, "binder transaction", 102,
     "transaction id=33:int | destination node=7:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x1c contents are the components root object; contents are a "
     "32-bit status code; allow replies with file descriptors; :string | code=0xffffff Java Layer "
     "Dependent:string | calling tid=102:uint | destination thread=203:uint | destination "
     "name=server-w:string"},
    {19, 4450, 50, "binder reply", 203,
     "destination thread=102:int | destination name=client-b:string | transaction id=34:int | "
     "destination node=0:int | destination process=100:int | reply transaction?=1:bool | "
     "flags=0x1c contents are the components root object; contents are a 32-bit status code; allow "
     "replies with file descriptors; :string | code=0xffffff Java Layer Dependent:string | calling "
     "tid=203:uint"},
    {20, 4600, 150, "binder transaction", 102,
     "transaction id=35:int | destination node=7:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x00 No Flags Set:string | code=0xffffff Java Layer "
     "Dependent:string | calling tid=102:uint | destination thread=203:uint | destination "
     "name=server-w:string"},
    {21, 4650, 50, "binder reply", 203,
     "destination thread=102:int | destination name=client-b:string | transaction id=36:int | "
     "destination node=0:int | destination process=100:int | reply transaction?=1:bool | "
     "flags=0x00 No Flags Set:string | code=0xffffff Java Layer Dependent:string | calling "
     "tid=203:uint"},
    {22, 4800, 150, "binder transaction", 102,
     "transaction id=37:int | destination node=7:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x40 :string | code=0x1000000 Java Layer Dependent:string | "
     "calling tid=102:uint | destination thread=203:uint | destination name=server-w:string"},
    {23, 4850, 50, "binder reply", 203,
     "destination thread=102:int | destination name=client-b:string | transaction id=38:int | "
     "destination node=0:int | destination process=100:int | reply transaction?=1:bool | "
     "flags=0x40 :string | code=0x1000000 Java Layer Dependent:string | calling tid=203:uint"},
    {24, 5000, 0, "binder transaction async", 102,
     "transaction id=39:int | destination node=7:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x03 this is a one-way call: async, no return; :string | "
     "code=0x5f434d44 Java Layer Dependent:string | calling tid=102:uint"},
    {25, 5050, 0, "binder async rcv", 203,
     "transaction id=39:int | destination node=7:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x03 this is a one-way call: async, no return; :string | "
     "code=0x5f434d44 Java Layer Dependent:string | calling tid=102:uint"},
    {26, 5200, 0, "binder transaction async", 102,
     "transaction id=40:int | destination node=7:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x09 this is a one-way call: async, no return; contents are a "
     "32-bit status code; :string | code=0x5f545053 Java Layer Dependent:string | calling "
     "tid=102:uint"},
    {27, 5250, 0, "binder async rcv", 203,
     "transaction id=40:int | destination node=7:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x09 this is a one-way call: async, no return; contents are a "
     "32-bit status code; :string | code=0x5f545053 Java Layer Dependent:string | calling "
     "tid=102:uint"},
    {28, 5400, 0, "binder transaction async", 102,
     "transaction id=41:int | destination node=7:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x05 this is a one-way call: async, no return; contents are the "
     "components root object; :string | code=0x02 Java Layer Dependent:string | calling "
     "tid=102:uint"},
    {29, 5450, 0, "binder async rcv", 203,
     "transaction id=41:int | destination node=7:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x05 this is a one-way call: async, no return; contents are the "
     "components root object; :string | code=0x02 Java Layer Dependent:string | calling "
     "tid=102:uint"},
    {30, 5600, 150, "binder transaction", 102,
     "transaction id=42:int | destination node=7:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x100 :string | code=0x03 Java Layer Dependent:string | calling "
     "tid=102:uint | destination thread=203:uint | destination name=server-w:string"},
    {31, 5650, 50, "binder reply", 203,
     "destination thread=102:int | destination name=client-b:string | transaction id=43:int | "
     "destination node=0:int | destination process=100:int | reply transaction?=1:bool | "
     "flags=0x100 :string | code=0x03 Java Layer Dependent:string | calling tid=203:uint"},
    {32, 5800, 150, "binder transaction", 102,
     "transaction id=44:int | destination node=7:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x10000 :string | code=0x04 Java Layer Dependent:string | "
     "calling tid=102:uint | destination thread=203:uint | destination name=server-w:string"},
    {33, 5850, 50, "binder reply", 203,
     "destination thread=102:int | destination name=client-b:string | transaction id=45:int | "
     "destination node=0:int | destination process=100:int | reply transaction?=1:bool | "
     "flags=0x10000 :string | code=0x04 Java Layer Dependent:string | calling tid=203:uint"},
    {34, 6200, -1, "binder transaction", 103,
     "transaction id=98:int | destination node=5:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x10 allow replies with file descriptors; :string | code=0x01 "
     "Java Layer Dependent:string | calling tid=103:uint"},
    {35, 6600, 150, "binder transaction", 101,
     "transaction id=30:int | destination node=5:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x00 No Flags Set:string | code=0x07 Java Layer Dependent:string "
     "| calling tid=101:uint | destination thread=201:uint | destination name=server-main:string"},
    {36, 6650, 50, "binder reply", 201,
     "destination thread=101:int | destination name=client-main:string | transaction id=31:int | "
     "destination node=0:int | destination process=100:int | reply transaction?=1:bool | "
     "flags=0x00 No Flags Set:string | code=0x00 Java Layer Dependent:string | calling "
     "tid=201:uint"},
    {37, 6800, 150, "binder transaction", 401,
     "transaction id=40:int | destination node=8:int | destination process=500:int | reply "
     "transaction?=0:bool | flags=0x00 No Flags Set:string | code=0x09 Java Layer Dependent:string "
     "| calling tid=401:uint | destination thread=501:uint"},
    {38, 6850, 50, "binder reply", 501,
     "destination thread=401:int | transaction id=41:int | destination node=0:int | destination "
     "process=400:int | reply transaction?=1:bool | flags=0x00 No Flags Set:string | code=0x00 "
     "Java Layer Dependent:string | calling tid=501:uint"},
    {39, 7000, 0, "binder transaction async", 101,
     "transaction id=42:int | destination node=6:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x01 this is a one-way call: async, no return; :string | "
     "code=0x03 Java Layer Dependent:string | calling tid=101:uint"},
    {40, 7050, 0, "binder async rcv", 201,
     "transaction id=42:int | destination node=6:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x01 this is a one-way call: async, no return; :string | "
     "code=0x03 Java Layer Dependent:string | calling tid=101:uint"},
    {41, 7200, 150, "binder transaction", 101,
     "transaction id=50:int | destination node=5:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x00 No Flags Set:string | code=0x01 Java Layer Dependent:string "
     "| calling tid=101:uint | destination thread=201:uint | destination name=server-main:string"},
    {42, 7250, 50, "binder reply", 201,
     "destination thread=999:int | transaction id=51:int | destination node=0:int | destination "
     "process=300:int | reply transaction?=1:bool | flags=0x00 No Flags Set:string | code=0x00 "
     "Java Layer Dependent:string | calling tid=201:uint"},
    {43, 7400, 150, "binder transaction", 102,
     "transaction id=52:int | destination node=5:int | destination process=200:int | reply "
     "transaction?=0:bool | flags=0x00 No Flags Set:string | code=0x01 Java Layer Dependent:string "
     "| calling tid=102:uint | destination thread=201:uint | destination name=server-main:string"},
    {44, 7450, 50, "binder reply", 201,
     "destination thread=0:int | destination name=swapper:string | transaction id=53:int | "
     "destination node=0:int | destination process=100:int | reply transaction?=1:bool | "
     "flags=0x00 No Flags Set:string | code=0x00 Java Layer Dependent:string | calling "
     "tid=201:uint"},
};

std::string Str(const SqlValue& v) {
  if (v.type == SqlValue::kInt) return std::to_string(v.i);
  if (v.type == SqlValue::kString) return std::string(v.s);
  return "NULL";
}

TEST(BinderArgs, EverySliceHasUpstreamsArgsInUpstreamsOrder) {
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(std::string(FATHOM_FTRACE_DATA_DIR) + "/binder_args.pb").ok());
  auto it = tp.Query(
      "select s.id, s.ts, s.dur, s.name, t.tid, group_concat(a.key || '=' || "
      "coalesce(a.int_value, a.string_value) || ':' || a.value_type, ' | ') "
      "from slice s join thread_track tt on s.track_id = tt.id join thread t using(utid) "
      "left join (select * from args order by id) a using(arg_set_id) "
      "where s.name like 'binder%' group by s.id order by s.id");
  ASSERT_TRUE(it->NextResultSet()) << it->status().message();
  size_t n = 0;
  while (it->NextRow()) {
    ASSERT_LT(n, std::size(kExpected));
    const Row& e = kExpected[n++];
    EXPECT_EQ(it->Get(0).i, e.id);
    EXPECT_EQ(it->Get(1).i, e.ts) << e.id;
    EXPECT_EQ(it->Get(2).i, e.dur) << e.id;
    EXPECT_EQ(Str(it->Get(3)), e.name) << e.id;
    EXPECT_EQ(it->Get(4).i, e.tid) << e.id;
    EXPECT_EQ(Str(it->Get(5)), e.args) << e.id;
  }
  EXPECT_EQ(n, std::size(kExpected));
}

TEST(BinderArgs, OnewayInstantsShareOneArgSet) {
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(std::string(FATHOM_FTRACE_DATA_DIR) + "/binder_args.pb").ok());
  auto it = tp.Query(
      "select count(*) from flow f join slice o on o.id = f.slice_out "
      "join slice i on i.id = f.slice_in where o.name = 'binder transaction async' "
      "and o.arg_set_id = i.arg_set_id");
  ASSERT_TRUE(it->NextResultSet() && it->NextRow());
  EXPECT_EQ(it->Get(0).i, 6);
}

TEST(BinderArgs, FlagsAndCodeText) {
  EXPECT_EQ(BinderFlagsString(0), "0x00 No Flags Set");
  EXPECT_EQ(BinderFlagsString(0x12), "0x12 allow replies with file descriptors; ");
  EXPECT_EQ(BinderFlagsString(0x10000), "0x10000 ");
  EXPECT_EQ(BinderCodeString(0x5f504e47), "0x5f504e47 Java Layer Dependent");
  EXPECT_EQ(BinderCodeString(3), "0x03 Java Layer Dependent");
}

// On the real trace: the same keys, types and counts as upstream.
TEST(BinderArgs, RealTraceKeysAndCounts) {
  TraceProcessor tp;
  ASSERT_TRUE(
      tp.LoadFile(testing::TestData("android_sched_binder_10s.perfetto-trace").string()).ok());
  auto it = tp.Query(
      "select s.name || '/' || a.key || '/' || a.value_type || '/' || count(*) from slice s "
      "join args a using(arg_set_id) where s.name like 'binder%' group by s.name, a.key, "
      "a.value_type order by 1");
  ASSERT_TRUE(it->NextResultSet());
  std::vector<std::string> got;
  while (it->NextRow()) got.push_back(Str(it->Get(0)));
  std::vector<std::string> want;
  auto add = [&](const char* name, int count, bool with_dest, const char* dest_type) {
    const std::vector<std::pair<std::string, std::string>> keys = {
        {"calling tid", "uint"},        {"code", "string"},  {"destination node", "int"},
        {"destination process", "int"}, {"flags", "string"}, {"reply transaction?", "bool"},
        {"transaction id", "int"}};
    for (const auto& [k, t] : keys)
      want.push_back(std::string(name) + "/" + k + "/" + t + "/" + std::to_string(count));
    if (with_dest) {
      want.push_back(std::string(name) + "/destination name/string/" + std::to_string(count));
      want.push_back(std::string(name) + "/destination thread/" + dest_type + "/" +
                     std::to_string(count));
    }
  };
  // From the oracle.
  add("binder async rcv", 77, false, "");
  add("binder reply", 714, true, "int");
  add("binder transaction", 715, true, "uint");
  add("binder transaction async", 77, false, "");
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace fathom
