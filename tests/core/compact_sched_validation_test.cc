// The tokenizer validates every compact_sched bundle (column lengths, varint
// framing) before the sorter queues it as a run of bytes, because the merge
// decodes it again later and relies on it being well formed. These cases put
// long varints and bad framing at every offset in the column: a bad bundle is
// dropped whole and counted, a good one (even with 10-byte negative varints)
// loads every event.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

using perfetto::protos::FtraceEventBundle_CompactSched;

constexpr int kSwitches = 24;

// A bundle of kSwitches switches on `cpu` from `first_ts`, 10 ns apart. When
// `raw_pids` is given, the next_pid column is exactly those bytes (one packed
// field occurrence each) instead of the encoding of `pids`.
std::string Bundle(uint32_t cpu, uint64_t first_ts, const std::vector<int32_t>& pids,
                   const std::vector<int32_t>& prios,
                   const std::vector<std::string>& raw_pids = {}) {
  perfetto::protos::Trace trace;
  auto* bundle = trace.add_packet()->mutable_ftrace_events();
  bundle->set_cpu(cpu);
  auto* cs = bundle->mutable_compact_sched();
  cs->add_intern_table("comm");
  for (int i = 0; i < kSwitches; ++i) {
    cs->add_switch_timestamp(i == 0 ? first_ts : 10);
    cs->add_switch_prev_state(0);
    if (raw_pids.empty()) cs->add_switch_next_pid(pids[i]);
    cs->add_switch_next_prio(prios[i]);
    cs->add_switch_next_comm_index(0);
  }
  for (const std::string& raw : raw_pids) {
    cs->GetReflection()->MutableUnknownFields(cs)->AddLengthDelimited(
        FtraceEventBundle_CompactSched::kSwitchNextPidFieldNumber, raw);
  }
  return trace.SerializeAsString();
}

std::string Varint(uint64_t v) { return testing::TestVarint(v); }

struct Loaded {
  int64_t parse_errors = 0;
  std::vector<int64_t> next_pids;  // of the switch rows, in ts order
  std::vector<int64_t> next_prios;
};

Loaded Load(const std::string& bytes) {
  TraceProcessor tp;
  Loaded out;
  auto status = tp.LoadBuffer(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  EXPECT_TRUE(status.ok()) << status.message();
  out.parse_errors = tp.storage().stats.Get(Stat::kCompactSchedParseErrors);
  auto it = tp.Query(
      "SELECT EXTRACT_ARG(arg_set_id, 'next_pid'), EXTRACT_ARG(arg_set_id, 'next_prio') "
      "FROM ftrace_event WHERE name = 'sched_switch' ORDER BY ts");
  EXPECT_TRUE(it->NextResultSet()) << it->status().message();
  while (it->NextRow()) {
    out.next_pids.push_back(it->Get(0).i);
    out.next_prios.push_back(it->Get(1).i);
  }
  return out;
}

std::vector<int32_t> Pids() {
  std::vector<int32_t> pids;
  for (int i = 0; i < kSwitches; ++i) pids.push_back(100 + i * 37);
  return pids;
}

TEST(CompactSchedValidation, TenByteNegativeVarintsLoad) {
  // A negative int32 is a 10-byte varint (9 continuation bytes): the word
  // count hands such columns to the exact walk, which accepts them.
  std::vector<int32_t> pids = Pids();
  std::vector<int32_t> prios(kSwitches, 120);
  for (int i = 0; i < kSwitches; i += 3) prios[i] = -1 - i;
  pids[5] = -7;
  Loaded l = Load(Bundle(0, 1000, pids, prios));
  EXPECT_EQ(l.parse_errors, 0);
  // The first switch on a CPU only says who runs: no raw row.
  ASSERT_EQ(l.next_pids.size(), static_cast<size_t>(kSwitches - 1));
  for (int i = 1; i < kSwitches; ++i) {
    EXPECT_EQ(l.next_pids[i - 1], pids[i]) << i;
    EXPECT_EQ(l.next_prios[i - 1], prios[i]) << i;
  }
}

TEST(CompactSchedValidation, BadVarintFramingDropsTheBundleAtEveryOffset) {
  std::vector<int32_t> pids = Pids();
  std::vector<int32_t> prios(kSwitches, 120);
  const std::string good_later = Bundle(1, 5000, pids, prios);
  std::vector<std::string> encoded;
  for (int32_t p : pids) encoded.push_back(Varint(static_cast<uint32_t>(p)));
  // The pids are one- and two-byte varints, so the bad one lands at every
  // offset in a word as `bad` moves along; the value count stays right, only
  // the framing is wrong.
  for (int bad = 0; bad < kSwitches; ++bad) {
    std::string overlong;                 // ten continuation bytes before the terminator
    std::string first_part, second_part;  // the column split mid-varint
    for (int i = 0; i < kSwitches; ++i) {
      overlong += i == bad ? std::string(10, '\x81') + Varint(1) : encoded[i];
      if (i < bad) {
        first_part += encoded[i];
      } else if (i == bad) {
        first_part += std::string(1 + bad % 8, '\x81');  // cut short...
        second_part += Varint(1);                        // ...ended in the next field
      } else {
        second_part += encoded[i];
      }
    }
    Loaded l = Load(Bundle(0, 1000, pids, prios, {overlong}) + good_later);
    EXPECT_EQ(l.parse_errors, 1) << "overlong varint #" << bad;
    // Only the good bundle's switches are there.
    EXPECT_EQ(l.next_pids.size(), static_cast<size_t>(kSwitches - 1)) << "overlong #" << bad;
    l = Load(Bundle(0, 1000, pids, prios, {first_part, second_part}) + good_later);
    EXPECT_EQ(l.parse_errors, 1) << "truncated varint #" << bad;
    EXPECT_EQ(l.next_pids.size(), static_cast<size_t>(kSwitches - 1)) << "truncated #" << bad;
  }
}

TEST(CompactSchedValidation, PackedColumnMatchingTheCountLoads) {
  // The same column, written by hand with a long varint in each word
  // position, loads unchanged when its count is right.
  std::vector<int32_t> pids = Pids();
  std::vector<int32_t> prios(kSwitches, 120);
  for (int long_at = 0; long_at < 10; ++long_at) {
    std::vector<int32_t> p = pids;
    p[long_at] = 0x7fffffff;  // five bytes
    std::string raw;
    for (int32_t v : p) raw += Varint(static_cast<uint32_t>(v));
    Loaded l = Load(Bundle(0, 1000, p, prios, {raw}));
    EXPECT_EQ(l.parse_errors, 0) << long_at;
    ASSERT_EQ(l.next_pids.size(), static_cast<size_t>(kSwitches - 1));
    for (int i = 1; i < kSwitches; ++i) EXPECT_EQ(l.next_pids[i - 1], p[i]) << long_at;
  }
}

}  // namespace
}  // namespace fathom
