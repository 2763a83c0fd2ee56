// simpleperf report-sample files built here byte by byte. The suite's cases
// have their records in time order with files first; these pin what upstream
// does otherwise. Every expected value was read off upstream
// trace_processor_shell v58.2 run on the same bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/trace_processor.h"
#include "trace_test_util.h"

namespace fathom {
namespace {

using testing::AsBytes;

std::string Varint(uint64_t v) {
  std::string out;
  do {
    uint8_t b = v & 0x7F;
    v >>= 7;
    out.push_back(static_cast<char>(v ? (b | 0x80) : b));
  } while (v);
  return out;
}
std::string VarintField(uint32_t id, uint64_t v) { return Varint(id << 3) + Varint(v); }
std::string BytesField(uint32_t id, const std::string& b) {
  return Varint((id << 3) | 2) + Varint(b.size()) + b;
}

struct Entry {
  uint64_t vaddr;
  uint32_t file_id;
  std::optional<int32_t> symbol_id;
};

std::string Sample(uint64_t ts, uint32_t tid, const std::vector<Entry>& chain) {
  std::string m = VarintField(1, ts) + VarintField(2, tid);
  for (const Entry& e : chain) {
    std::string entry = VarintField(1, e.vaddr) + VarintField(2, e.file_id);
    if (e.symbol_id) entry += VarintField(3, static_cast<uint64_t>(int64_t{*e.symbol_id}));
    m += BytesField(3, entry);
  }
  return BytesField(1, m);
}
std::string File(uint32_t id, const std::string& path, const std::vector<std::string>& symbols) {
  std::string m = VarintField(1, id) + BytesField(2, path);
  for (const std::string& s : symbols) m += BytesField(3, s);
  return BytesField(3, m);
}
std::string Thread(uint32_t tid, uint32_t pid, const std::string& name) {
  return BytesField(4, VarintField(1, tid) + VarintField(2, pid) + BytesField(3, name));
}
std::string Meta(const std::vector<std::string>& event_types) {
  std::string m;
  for (const std::string& e : event_types) m += BytesField(1, e);
  return BytesField(5, m);
}

std::string SimpleperfFile(const std::vector<std::string>& records) {
  std::string out = "SIMPLEPERF";
  out += std::string("\x01\x00", 2);
  auto u32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  };
  for (const std::string& r : records) {
    u32(static_cast<uint32_t>(r.size()));
    out += r;
  }
  u32(0);
  return out;
}

std::vector<std::string> Rows(TraceProcessor& tp, const std::string& sql) {
  std::vector<std::string> rows;
  auto it = tp.Query(sql);
  EXPECT_TRUE(it->NextResultSet()) << sql << ": " << it->status().message();
  while (it->NextRow()) {
    std::string row;
    for (int c = 0; c < it->column_count(); ++c) {
      auto v = it->Get(c);
      if (c) row += ",";
      if (v.type == SqlValue::kNull)
        row += "NULL";
      else if (v.type == SqlValue::kString)
        row += std::string(v.s);
      else
        row += std::to_string(v.i);
    }
    rows.push_back(row);
  }
  return rows;
}

TEST(SimpleperfProto, RecordsAppliedInTimeOrderThreadsAfterTheirPrecedingSample) {
  // Samples out of time order; files after the samples that use them and
  // redefined (the last definition counts); an empty callchain; a symbol id
  // out of range; a missing symbol id (proto default 0).
  std::string trace = SimpleperfFile({
      Thread(30, 40, "t30"),
      Meta({"cpu-clock", "page-faults"}),
      File(1, "/a.so", {"f0", "f1"}),
      Sample(5000, 31, {{16, 1, 5}, {32, 1, std::nullopt}}),
      Thread(31, 40, "t31"),
      Sample(4000, 30, {{16, 1, 0}}),
      Sample(6000, 32, {}),
      Thread(32, 41, "t32"),
      Sample(4500, 33, {{16, 1, 0}}),
      Thread(33, 41, "t33"),
      File(1, "/a2.so", {"h0"}),
      Sample(7000, 30, {{16, 1, 0}}),
  });
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadBuffer(AsBytes(trace), trace.size(), "perf.trace").ok());
  EXPECT_EQ(Rows(tp, "select ts, callsite_id, utid from cpu_profile_stack_sample order by id"),
            (std::vector<std::string>{"4000,0,2", "4500,0,3", "5000,2,5", "7000,0,2"}));
  EXPECT_EQ(Rows(tp, "select depth, parent_id, frame_id from stack_profile_callsite order by id"),
            (std::vector<std::string>{"0,NULL,0", "0,NULL,1", "1,1,2"}));
  EXPECT_EQ(Rows(tp, "select name, mapping, rel_pc from stack_profile_frame order by id"),
            (std::vector<std::string>{"h0,1,16", "h0,1,32", "NULL,1,16"}));
  EXPECT_EQ(Rows(tp, "select build_id, start, end, name from stack_profile_mapping order by id"),
            (std::vector<std::string>{",0,-1,/a.so", ",0,-1,/a2.so"}));
  // (utid 0 left out: Fathom always names it "swapper", upstream only when
  // the trace has kernel data.)
  EXPECT_EQ(Rows(tp,
                 "select utid, tid, name, upid, is_main_thread from thread where utid > 0 "
                 "order by utid"),
            (std::vector<std::string>{"1,40,NULL,1,1", "2,30,t30,1,0", "3,33,t33,2,0",
                                      "4,41,NULL,2,1", "5,31,t31,1,0", "6,32,t32,2,0"}));
  EXPECT_EQ(Rows(tp, "select start_ts, end_ts from trace_bounds"),
            (std::vector<std::string>{"4000,7000"}));
}

TEST(SimpleperfProto, SampleNamingAnUnknownFileIsDroppedButItsThreadIsKept) {
  std::string trace = SimpleperfFile({
      Sample(3000, 10, {{16, 1, 0}, {32, 1, 1}}),
      Sample(1000, 11, {{16, 1, 0}, {48, 2, 0}}),
      Thread(11, 20, "t11"),
      Sample(2000, 12, {{16, 1, 5}, {48, 3, 0}}),
      Thread(10, 20, "t10"),
      File(1, "/a.so", {"f0", "f1"}),
      File(2, "/b.so", {"g0"}),
  });
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadBuffer(AsBytes(trace), trace.size(), "perf.trace").ok());
  EXPECT_EQ(Rows(tp, "select ts, callsite_id, utid from cpu_profile_stack_sample order by id"),
            (std::vector<std::string>{"1000,1,1", "3000,3,4"}));
  EXPECT_EQ(Rows(tp, "select name, mapping, rel_pc from stack_profile_frame order by id"),
            (std::vector<std::string>{"g0,1,48", "f0,0,16", "f1,0,32"}));
  EXPECT_EQ(
      Rows(tp, "select utid, tid, name, upid from thread where utid > 0 order by utid"),
      (std::vector<std::string>{"1,11,t11,1", "2,20,NULL,1", "3,12,NULL,NULL", "4,10,t10,1"}));
}

}  // namespace
}  // namespace fathom
