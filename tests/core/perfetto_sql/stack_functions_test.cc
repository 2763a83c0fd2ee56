// CAT_STACKS, STACK_FROM_STACK_PROFILE_* and EXPERIMENTAL_PROFILE against
// trace_processor_shell v58.2's answers (/work/shared/oracle). Every expected
// hex string below is the oracle's output of the same query, produced with
//   echo "SQL" > q.sql; trace_processor_shell query -f q.sql TRACE
// on the trace the test loads; experimental_profile/ holds the longer ones
// (see its README.md).
//
// Stack blobs are compared byte for byte. pprof blobs are compared field by
// field at the wire level: the string table and sample types in order, and
// the mappings, functions and locations sorted by id and the samples by their
// bytes, each message as written but with minimal length prefixes, because
// upstream writes those four lists in the iteration order of its hash
// tables, which Fathom does not reproduce (it writes them in id order), and
// leaves some lengths padded where that order puts them across a buffer
// boundary (see Minimal).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "core/import/proto_decoder.h"
#include "core/sql/functions/proto_writer.h"
#include "core/sql/result_printer.h"
#include "core/trace_processor.h"

namespace fathom {
namespace {

namespace fs = std::filesystem;

fs::path Testdata(const std::string& name) {
  return fs::path(FATHOM_SHARED_DIR) / "testdata" / name;
}

// The first cell of the query's answer, or "ERROR: message".
std::string Cell(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  auto rows = RowsAsText(it.get());
  if (!rows.ok()) return "ERROR: " + rows.status().message();
  if (rows->empty() || rows->back().empty()) return "NO ROWS";
  return rows->back()[0];
}

std::string Unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

std::string Hex(const std::string& bytes) {
  static const char kDigits[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

std::string ReadHex(const std::string& name) {
  std::ifstream in(fs::path(FATHOM_TEST_SOURCE_DIR) / "perfetto_sql" / "experimental_profile" /
                   name);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return std::isspace(c); }), s.end());
  return s;
}

// A message's fields re-encoded with minimal lengths, recursing into the
// fields in `nested` (field -> its own nested fields). Upstream's writer
// reserves 4 bytes for a nested message's length and shortens it afterwards,
// except when the message crosses one of its buffer's chunk boundaries (every
// 8 KB or so): there the padded varint stays. Where such a boundary falls
// depends on the lists' order, so only the values are compared.
std::string Minimal(proto::Bytes msg, const std::set<uint32_t>& nested) {
  // Line (4) inside a location (4); ValueType (1), mapping (3) and function
  // (5) hold only scalars; a sample's (2) fields are packed scalars.
  std::string out;
  proto::Decoder d(msg);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.type == proto::WireType::kVarint) {
      proto_out::VarintField(&out, f.id, f.as_uint64());
    } else if (f.type == proto::WireType::kLengthDelimited) {
      std::string body(f.as_string());
      if (nested.count(f.id)) body = Minimal(f.bytes, {});
      proto_out::BytesField(&out, f.id, body);
    } else {
      out += "?";  // no fixed-width fields in a pprof
    }
  }
  return out;
}

// The profile's top-level fields as "field:hex" lines, in wire order except
// that mappings (3), locations (4) and functions (5) are sorted by id and
// samples (2) by their bytes (see the file comment). A field written as 0
// still differs from one left out.
std::string Canonical(const std::string& hex) {
  const std::string bytes = Unhex(hex);
  proto::Decoder d(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  std::vector<std::string> head;  // string table and sample types
  std::map<uint32_t, std::vector<std::pair<uint64_t, std::string>>> lists;
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.type != proto::WireType::kLengthDelimited) {
      head.push_back(std::to_string(f.id) + ":" + std::to_string(f.as_uint64()));
      continue;
    }
    const std::string body =
        f.id == 6 ? std::string(f.as_string())
                  : Minimal(f.bytes, f.id == 4 ? std::set<uint32_t>{4} : std::set<uint32_t>{});
    const std::string line = std::to_string(f.id) + ":" + Hex(body);
    if (f.id < 2 || f.id > 5) {
      head.push_back(line);
      continue;
    }
    uint64_t key = 0;
    if (f.id != 2) {  // mapping, location, function: field 1 is the id
      proto::Decoder m(f.bytes);
      for (proto::Field g = m.Next(); g.valid(); g = m.Next())
        if (g.id == 1) key = g.as_uint64();
    }
    lists[f.id].emplace_back(key, line);
  }
  if (d.error()) return "UNPARSABLE: " + hex;
  std::string out;
  for (const std::string& l : head) out += l + "\n";
  for (uint32_t id : {3u, 5u, 4u, 2u}) {
    std::sort(lists[id].begin(), lists[id].end());
    for (const auto& [key, l] : lists[id]) out += l + "\n";
  }
  return out;
}

class StackFunctions : public ::testing::Test {
 protected:
  void Load(const std::string& trace) {
    const fs::path path = Testdata(trace);
    if (!fs::exists(path)) GTEST_SKIP() << "needs " << path.string();
    ASSERT_TRUE(tp_.LoadFile(path.string()).ok());
  }
  void LoadWithStdlib(const std::string& trace) {
    const fs::path stdlib = fs::path(FATHOM_SHARED_DIR) / "perfetto-stdlib";
    if (!fs::exists(stdlib)) GTEST_SKIP() << "needs " << stdlib.string();
    ASSERT_TRUE(tp_.sql_packages().SetStdlib(stdlib.string()).ok());
    Load(trace);
  }
  // Fathom's profile and the oracle's, both decoded and sorted.
  void ExpectProfile(const std::string& sql, const std::string& oracle_hex) {
    const std::string got = Cell(tp_, sql);
    ASSERT_EQ(got.rfind("ERROR", 0), std::string::npos) << got;
    EXPECT_EQ(Canonical(got), Canonical(oracle_hex)) << sql;
  }
  void ExpectError(const std::string& sql, const std::string& message) {
    const std::string got = Cell(tp_, sql);
    EXPECT_NE(got.find(message), std::string::npos) << sql << "\n  gave: " << got;
  }
  TraceProcessor tp_;
};

// Arguments go root to leaf, entries leaf to root: the last argument's
// entries come first. Blobs are copied as they are, even when not a Stack.
TEST_F(StackFunctions, CatStacks) {
  Load("systrace_android.txt");
  EXPECT_EQ(Cell(tp_, "select hex(cat_stacks('a', 'b', NULL))"), "0A030A01620A030A0161");
  EXPECT_EQ(Cell(tp_, "select hex(cat_stacks(cat_stacks('a', 'b'), 'c', cat_stacks('d')))"),
            "0A030A01640A030A01630A030A01620A030A0161");
  EXPECT_EQ(Cell(tp_, "select hex(cat_stacks(''))"), "0A020A00");
  EXPECT_EQ(Cell(tp_, "select hex(cat_stacks('é'))"), "0A040A02C3A9");
  EXPECT_EQ(Cell(tp_, "select hex(cat_stacks('a' || char(0) || 'b'))"), "0A030A0161");
  EXPECT_EQ(Cell(tp_, "select hex(cat_stacks(x'01', x'02', 'z'))"), "0A030A017A0201");
  EXPECT_EQ(Cell(tp_, "select hex(cat_stacks(cast('ab' as blob)))"), "6162");
  EXPECT_EQ(Cell(tp_,
                 "select typeof(cat_stacks()) || typeof(cat_stacks(NULL)) || "
                 "typeof(cat_stacks(x'')) || typeof(cat_stacks('')) || "
                 "typeof(cat_stacks(x'', 'a'))"),
            "nullnullnullblobblob");
  ExpectError("select cat_stacks('a', 1)", "CAT_STACKS: entry 1 must be BLOB, STRING, or NULL");
  ExpectError("select cat_stacks(1, 2.5)", "CAT_STACKS: entry 1 must be BLOB, STRING, or NULL");
}

TEST_F(StackFunctions, StackFromStackProfile) {
  Load("heapprofd_continuous_legacy.pb");
  EXPECT_EQ(Cell(tp_,
                 "select hex(stack_from_stack_profile_callsite(1)) || ',' || "
                 "hex(stack_from_stack_profile_callsite(1, true)) || ',' || "
                 "hex(stack_from_stack_profile_frame(1)) || ',' || "
                 "hex(cat_stacks(stack_from_stack_profile_callsite(1), 'x'))"),
            "0A021001,0A021801,0A022001,0A030A01780A021001");
  EXPECT_EQ(Cell(tp_, "select hex(stack_from_stack_profile_callsite(1, 2))"), "0A021801");
  EXPECT_EQ(Cell(tp_,
                 "select typeof(stack_from_stack_profile_callsite(NULL)) || "
                 "typeof(stack_from_stack_profile_callsite(1, NULL)) || "
                 "typeof(stack_from_stack_profile_frame(NULL))"),
            "nullnullnull");
  ExpectError("select stack_from_stack_profile_callsite(5)",
              "STACK_FROM_STACK_PROFILE_CALLSITE: callsite_id does not exist: 5");
  ExpectError("select stack_from_stack_profile_callsite(-1)",
              "STACK_FROM_STACK_PROFILE_CALLSITE: callsite_id does not exist: -1");
  ExpectError("select stack_from_stack_profile_callsite('a')",
              "STACK_FROM_STACK_PROFILE_CALLSITE: callsite_id must be integer");
  ExpectError("select stack_from_stack_profile_callsite(1, 'x')",
              "STACK_FROM_STACK_PROFILE_CALLSITE: annotate must be integer");
  ExpectError("select stack_from_stack_profile_frame(100000)",
              "STACK_FROM_STACK_PROFILE_FRAME: frame_id does not exist: 100000");
  ExpectError("select stack_from_stack_profile_frame('x')",
              "STACK_FROM_STACK_PROFILE_FRAME: frame_id must be integer");
}

// Named frames: string ids in first-seen order interleaved with the sample
// types, function ids from 2, a frame named "" without a function, samples
// summed per location list, a stack without entries dropped, an entry with
// no field adding no location.
TEST_F(StackFunctions, ExperimentalProfileNamedFrames) {
  Load("systrace_android.txt");
  ExpectProfile(
      "select hex(experimental_profile(s, 'duration', 'ns', v, 'count', 'n', w)) from (select "
      "cat_stacks('a','b') s, 10 v, 1 w union all select cat_stacks('b','a'), 5, 2 union all "
      "select cat_stacks('a','b'), 3, 4)",
      "320032086475726174696F6E32026E730A04080110023205636F756E7432016E0A0408031004320162320161"
      "2A04080310062A040802100522080802100022020803220808011000220208021208120205020A0202011208"
      "12020D050A020102");
  ExpectProfile(
      "select hex(experimental_profile(s, 'duration', 'duration', v)) from (select "
      "cat_stacks('duration', '') s, 10 v)",
      "320032086475726174696F6E0A04080110012A04080210012208080210002202080222080801100022020800"
      "120712010A0A020102");
  ExpectProfile("select hex(experimental_profile(s)) from (select cat_stacks('a') s, 10 v)",
                "3200320773616D706C65733205636F756E740A04080110023201612A04080210032208080110002202"
                "080212061201010A0101");
  ExpectProfile(
      "select hex(experimental_profile(s, 'd', 'ns', v)) from (select x'0a00' s, 1 v union all "
      "select x'0a000a00' s, 2 v union all select cat_stacks('a', x'0a00'), 3 union all select "
      "x'', 4)",
      "320032016432026E730A04080110023201612A04080210032208080110002202080212051201030A00120612"
      "01030A0101");
  ExpectProfile(
      "select hex(experimental_profile(s, 'd', 'ns', v)) from (select cat_stacks('a') s, 10 v "
      "union all select cat_stacks('b'), 3 union all select cat_stacks('a'), -20 union all "
      "select cat_stacks('c', 'b'), 9223372036854775807)",
      "320032016432026E730A04080110023201613201623201632A04080410052A04080310042A04080210032208"
      "08031000220208042208080210002202080322080801100022020802120F120AF6FFFFFFFFFFFFFFFF010A01"
      "0112061201030A0102120F1209FFFFFFFFFFFFFFFF7F0A020203");
  ExpectProfile("select hex(experimental_profile(s, 'd', 'ns', v)) from (select x'' s, 1 v)",
                "320032016432026E730A0408011002");
  EXPECT_EQ(Cell(tp_,
                 "select typeof(experimental_profile(s, 'd', 'ns', v)) from (select "
                 "cat_stacks('a') s, 1 v where 0)"),
            "null");
}

TEST_F(StackFunctions, ExperimentalProfileErrors) {
  Load("systrace_android.txt");
  const std::string one_row = " from (select cat_stacks('a') s, 10 v)";
  ExpectError("select experimental_profile(NULL, 'd', 'ns', v)" + one_row,
              "EXPERIMENTAL_PROFILE: argument stack at pos 1: does not have expected type. "
              "Expected BYTES/PROTO but found NULL");
  ExpectError("select experimental_profile('a', 'd', 'ns', v)" + one_row,
              "EXPERIMENTAL_PROFILE: argument stack at pos 1: does not have expected type. "
              "Expected BYTES/PROTO but found STRING");
  ExpectError("select experimental_profile(s, 'd', 'ns', NULL)" + one_row,
              "EXPERIMENTAL_PROFILE: argument sample_value at pos 4: does not have expected "
              "type. Expected BOOL/INT/UINT/LONG but found NULL");
  ExpectError("select experimental_profile(s, 'd', 'ns', 2.7)" + one_row,
              "EXPERIMENTAL_PROFILE: argument sample_value at pos 4: does not have expected "
              "type. Expected BOOL/INT/UINT/LONG but found FLOAT/DOUBLE");
  ExpectError("select experimental_profile(s, 'd', 'ns', x'00')" + one_row,
              "Expected BOOL/INT/UINT/LONG but found BYTES/PROTO");
  ExpectError("select experimental_profile(s, 'd', 'ns', v, 'a', 'b', 'x')" + one_row,
              "EXPERIMENTAL_PROFILE: argument sample_value at pos 7: does not have expected "
              "type. Expected BOOL/INT/UINT/LONG but found STRING");
  ExpectError("select experimental_profile(x'0102', 'd', 'ns', v)" + one_row,
              "EXPERIMENTAL_PROFILE: argument stack at pos 1: failed to deserialize Stack proto");
  // A callsite or frame id that is no row (the trace has none).
  ExpectError("select experimental_profile(x'0a021000', 'd', 'ns', v)" + one_row,
              "EXPERIMENTAL_PROFILE: Failed to add callstack");
  ExpectError("select experimental_profile(x'0a022000', 'd', 'ns', v)" + one_row,
              "EXPERIMENTAL_PROFILE: Failed to add callstack");
}

// Callsites expand to their frames, leaf first, each with its mapping
// (exact_offset as file_offset) and rel_pc as the address; function
// system_name repeats the name.
TEST_F(StackFunctions, ExperimentalProfileCallsitesHeapprofd) {
  Load("heapprofd_continuous_legacy.pb");
  ExpectProfile(
      "select hex(experimental_profile(s, 'd', 'ns', v)) from (select "
      "stack_from_stack_profile_callsite(1) s, 10 v union all select "
      "cat_stacks(stack_from_stack_profile_frame(0), 'x'), 3 union all select "
      "stack_from_stack_profile_callsite(0, true), 1)",
      "320032016432026E730A0408011002321036323735363936633634326436393634320A2F6C69626C69622E73"
      "6F320266313201781A1408011000180020002804300338014000480050002A04080310062A06080210051805"
      "220B080310011880202202080222080802100022020803220B0801100118804022020802120612010A0A0101"
      "12061201010A010312071201030A020203");
}

TEST_F(StackFunctions, ExperimentalProfileCallsitesPerf) {
  Load("linux_compact_sched_perf_samples.pftrace");
  ExpectProfile(
      "select hex(experimental_profile(stack_from_stack_profile_callsite(c.id), 'd', 'ns', 1)) "
      "from (select * from stack_profile_callsite where id in (3, 4)) c",
      "320032016432026E730A040801100232237263755F67705F6B746872656164203C30786666666666666666"
      "39343861353663613E321C6B746872656164203C3078666666666666666639343766303731393E32227265"
      "745F66726F6D5F666F726B203C3078666666666666666639343732653865313E32267265745F66726F6D5F"
      "666F726B5F61736D203C3078666666666666666639343664643735613E32247263755F67705F6671735F6C"
      "6F6F70203C3078666666666666666639343861316464613E1A1D08011000180020CAADA9A4F9FFFFFFFF01"
      "2800300038014000480050001A1D08021000180020998EFCA3F9FFFFFFFF01280030003801400048005000"
      "1A1D08031000180020E1D1CBA3F9FFFFFFFF012800300038014000480050001A1D08041000180020DAAEB7"
      "A3F9FFFFFFFF012800300038014000480050001A1D08051000180020DABBA8A4F9FFFFFFFF012800300038"
      "014000480050002A060806100718072A060803100418042A060805100618062A060804100518052A060802"
      "10031803220B08051005188A0222020806220A08041004181A22020805220B0803100318F1012202080422"
      "0B0802100218F90122020803220B0801100118CA0322020802120A1201010A05050102030412091201010A"
      "0401020304");
}

// Every callsite of the perf trace, and a frame whose rel_pc is 0 (its
// location still carries address 0, which a named frame's never has).
TEST_F(StackFunctions, ExperimentalProfileAllPerfCallsites) {
  Load("linux_compact_sched_perf_samples.pftrace");
  ExpectProfile(
      "select hex(experimental_profile(stack_from_stack_profile_callsite(c.id), 'd', 'ns', "
      "c.depth)) from stack_profile_callsite c",
      ReadHex("perf_all_callsites.hex"));
  ExpectProfile(
      "select hex(experimental_profile(stack_from_stack_profile_frame(f.id))) from "
      "stack_profile_frame f where name glob '_Z*'",
      "3200320773616D706C65733205636F756E740A040801100232D7015F5A5374347377617049504E53743133"
      "5F5F6675747572655F6261736531325F526573756C745F6261736545454E537439656E61626C655F696649"
      "5873725374365F5F616E645F494A5374365F5F6E6F745F49537431355F5F69735F7475706C655F6C696B65"
      "49545F45455374323169735F6D6F76655F636F6E73747275637469626C654953375F455374313869735F6D"
      "6F76655F61737369676E61626C654953375F4545453576616C75654576453474797065455253375F53485F"
      "2028696E6C696E656429203C30783766313565623934363530363E1A1A0801100018002086CAD1DCDEE21F"
      "2800300038014000480050002A06080210031803220A0801100118002202080212061201010A0101");
}

// The standard library's binder graphs (android.binder) end to end.
TEST_F(StackFunctions, BinderGraphs) {
  LoadWithStdlib("android_sched_binder_10s.perfetto-trace");
  const std::string include = "INCLUDE PERFETTO MODULE android.binder; ";
  ExpectProfile(include + "select hex(pprof) from android_binder_outgoing_graph(NULL)",
                ReadHex("binder_outgoing_graph.hex"));
  ExpectProfile(include + "select hex(pprof) from android_binder_incoming_graph(NULL)",
                ReadHex("binder_incoming_graph.hex"));
  ExpectProfile(include +
                    "select hex(pprof) from android_binder_outgoing_graph((select upid from "
                    "process where name = 'com.android.systemui'))",
                ReadHex("binder_outgoing_graph_systemui.hex"));
  // The trace has no OOM scores: no transaction matches, no profile.
  EXPECT_EQ(
      Cell(tp_, include + "select typeof(pprof) from android_binder_graph(-1000, 1000, -1000, "
                          "1000)"),
      "null");
}

// android.monitor_contention's lock graph on a hand-written systrace: a
// binder thread blocked by a worker that main blocks, then by main.
TEST_F(StackFunctions, MonitorContentionGraph) {
  const fs::path stdlib = fs::path(FATHOM_SHARED_DIR) / "perfetto-stdlib";
  if (!fs::exists(stdlib)) GTEST_SKIP() << "needs " << stdlib.string();
  ASSERT_TRUE(tp_.sql_packages().SetStdlib(stdlib.string()).ok());
  const fs::path trace = fs::path(FATHOM_TEST_SOURCE_DIR) / "perfetto_sql" /
                         "experimental_profile" / "monitor_contention.systrace";
  ASSERT_TRUE(tp_.LoadFile(trace.string()).ok());
  ExpectProfile(
      "INCLUDE PERFETTO MODULE android.monitor_contention; select hex(pprof) from "
      "android_monitor_contention_graph((select upid from process where pid = 100))",
      ReadHex("monitor_contention_graph.hex"));
}

}  // namespace
}  // namespace fathom
