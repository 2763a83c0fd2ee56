// Binder flows on a real Android trace. The expected transaction -> receive
// pairs are counted here by decoding the trace with libprotobuf's generated
// classes and matching binder_transaction / binder_transaction_received by
// debug id in timestamp order, independently of the parser under test.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

using fathom::testing::ReadFileBytes;
using fathom::testing::TestData;

struct BinderPairs {
  int sync = 0;   // a call received by its callee
  int async = 0;  // a oneway call received
  int events = 0;
};

BinderPairs CountPairs(const std::string& path) {
  struct Ev {
    uint64_t ts;
    bool received;
    int32_t id;
    bool reply, oneway;
  };
  std::vector<Ev> evs;
  perfetto::protos::Trace trace;
  EXPECT_TRUE(trace.ParseFromString(ReadFileBytes(path)));
  for (const auto& p : trace.packet()) {
    if (!p.has_ftrace_events()) continue;
    for (const auto& e : p.ftrace_events().event()) {
      if (e.has_binder_transaction()) {
        const auto& t = e.binder_transaction();
        evs.push_back({e.timestamp(), false, t.debug_id(), t.reply() != 0, (t.flags() & 1) != 0});
      } else if (e.has_binder_transaction_received()) {
        evs.push_back(
            {e.timestamp(), true, e.binder_transaction_received().debug_id(), false, false});
      }
    }
  }
  // The importer sees events in timestamp order (ties keep file order).
  std::stable_sort(evs.begin(), evs.end(), [](const Ev& a, const Ev& b) { return a.ts < b.ts; });
  BinderPairs out;
  out.events = static_cast<int>(evs.size());
  std::map<int32_t, Ev> pending;
  for (const Ev& e : evs) {
    if (!e.received) {
      pending[e.id] = e;
      continue;
    }
    auto it = pending.find(e.id);
    if (it == pending.end()) continue;
    if (!it->second.reply) (it->second.oneway ? out.async : out.sync)++;
    pending.erase(it);
  }
  return out;
}

int64_t QueryInt(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  EXPECT_TRUE(it->NextResultSet() && it->NextRow()) << sql << ": " << it->status().message();
  return it->Get(0).i;
}

TEST(FtraceBinderFlows, OneFlowPerReceivedTransaction) {
  const std::string path = TestData("android_sched_binder_10s.perfetto-trace").string();
  BinderPairs pairs = CountPairs(path);
  ASSERT_GT(pairs.events, 1000);
  ASSERT_GT(pairs.sync, 100);
  ASSERT_GT(pairs.async, 10);

  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(path).ok());
  EXPECT_EQ(QueryInt(tp, "select count(*) from flow"), pairs.sync + pairs.async);
  const std::string join =
      " from flow f join slice o on o.id = f.slice_out join slice i on i.id = f.slice_in";
  EXPECT_EQ(QueryInt(tp, "select count(*)" + join +
                             " where o.name = 'binder transaction' and i.name = 'binder reply'"),
            pairs.sync);
  EXPECT_EQ(QueryInt(tp, "select count(*)" + join +
                             " where o.name = 'binder transaction async'"
                             " and i.name = 'binder async rcv'"),
            pairs.async);
  // Causality: a call is received after (or when) it is sent, on another
  // thread's track.
  EXPECT_EQ(QueryInt(tp, "select count(*)" + join + " where i.ts < o.ts"), 0);
  EXPECT_EQ(QueryInt(tp, "select count(*)" + join + " where i.track_id = o.track_id"), 0);
  // One flow per call: no slice sends or receives twice.
  EXPECT_EQ(QueryInt(tp, "select count(distinct slice_out) from flow"), pairs.sync + pairs.async);
  EXPECT_EQ(QueryInt(tp, "select count(distinct slice_in) from flow"), pairs.sync + pairs.async);
}

}  // namespace
}  // namespace fathom
