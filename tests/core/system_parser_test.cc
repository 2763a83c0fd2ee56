// Real-data checks of the ProcessTree/ProcessStats import. Expected values are
// computed here from the raw files with libprotobuf's generated classes (an
// independent decoder), never taken from Fathom's own output.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"

namespace fathom {
namespace {

namespace pp = perfetto::protos;

std::string TestdataPath(const std::string& name) {
  return std::string(FATHOM_SHARED_DIR) + "/testdata/" + name;
}

bool ReadTrace(const std::string& path, pp::Trace* trace) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return trace->ParseFromString(ss.str());
}

// What the process_tree packets of a trace say, decoded independently.
struct TreeFacts {
  std::set<int64_t> pids_with_cmdline;      // processes the probe could read
  std::map<int64_t, int64_t> uid_of_pid;    // last uid reported per pid
  std::set<int64_t> tids_of_other_threads;  // threads with tid != tgid
  int64_t rss_samples = 0;                  // ProcessStats vm_rss_kb values
  double rss_bytes_sum = 0;
};

TreeFacts CollectFacts(const pp::Trace& trace) {
  TreeFacts f;
  for (const auto& packet : trace.packet()) {
    if (packet.has_process_tree()) {
      for (const auto& p : packet.process_tree().processes()) {
        if (p.cmdline_size() == 0) continue;
        f.pids_with_cmdline.insert(p.pid());
        if (p.has_uid()) f.uid_of_pid[p.pid()] = p.uid();
      }
      for (const auto& t : packet.process_tree().threads())
        if (t.tid() != t.tgid()) f.tids_of_other_threads.insert(t.tid());
    }
    if (packet.has_process_stats()) {
      for (const auto& p : packet.process_stats().processes()) {
        if (!p.has_vm_rss_kb()) continue;
        ++f.rss_samples;
        f.rss_bytes_sum += static_cast<double>(p.vm_rss_kb()) * 1024;
      }
    }
  }
  return f;
}

// Runs a query returning one row and returns its columns.
std::vector<SqlValue> QueryRow(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  std::vector<SqlValue> row;
  if (!it->NextResultSet() || !it->NextRow()) {
    ADD_FAILURE() << sql << ": " << it->status().message();
    return row;
  }
  for (int i = 0; i < it->column_count(); ++i) row.push_back(it->Get(i));
  return row;
}

class SystemParserRealTrace : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string path = TestdataPath(GetParam());
    if (!std::ifstream(path).good()) GTEST_SKIP() << "missing " << path;
    ASSERT_TRUE(ReadTrace(path, &trace_)) << "libprotobuf could not parse " << path;
    facts_ = CollectFacts(trace_);
    Status st = tp_.LoadFile(path);
    ASSERT_TRUE(st.ok()) << st.message();
  }
  pp::Trace trace_;
  TreeFacts facts_;
  TraceProcessor tp_;
};

TEST_P(SystemParserRealTrace, EveryDumpedProcessHasARowWithItsCmdline) {
  ASSERT_FALSE(facts_.pids_with_cmdline.empty()) << "test data has no process_tree processes";
  // Only process dumps set cmdline, so the distinct pids with one must match.
  auto row = QueryRow(tp_, "SELECT COUNT(DISTINCT pid) FROM process WHERE cmdline IS NOT NULL");
  ASSERT_EQ(row.size(), 1u);
  EXPECT_EQ(row[0].i, static_cast<int64_t>(facts_.pids_with_cmdline.size()));
}

TEST_P(SystemParserRealTrace, UidsAndAppIdsFollowTheDump) {
  for (const auto& [pid, uid] : facts_.uid_of_pid) {
    auto row =
        QueryRow(tp_, "SELECT uid, android_appid, android_user_id FROM process WHERE pid = " +
                          std::to_string(pid) + " AND cmdline IS NOT NULL ORDER BY upid DESC");
    ASSERT_EQ(row.size(), 3u);
    EXPECT_EQ(row[0].i, uid) << "pid " << pid;
    EXPECT_EQ(row[1].i, uid % 100000) << "pid " << pid;
    EXPECT_EQ(row[2].i, uid / 100000) << "pid " << pid;
  }
}

TEST_P(SystemParserRealTrace, NonMainThreadsOfTheDumpAreNotMainThreads) {
  for (int64_t tid : facts_.tids_of_other_threads) {
    auto row = QueryRow(tp_, "SELECT COUNT(*), SUM(is_main_thread) FROM thread WHERE tid = " +
                                 std::to_string(tid) + " AND upid IS NOT NULL");
    ASSERT_EQ(row.size(), 2u);
    EXPECT_GE(row[0].i, 1) << "tid " << tid;
    EXPECT_EQ(row[1].i, 0) << "tid " << tid;
  }
}

TEST_P(SystemParserRealTrace, RssCountersAreInBytes) {
  auto row = QueryRow(tp_,
                      "SELECT COUNT(*), TOTAL(c.value) FROM counter c JOIN process_counter_track t "
                      "ON c.track_id = t.id WHERE t.name = 'mem.rss'");
  ASSERT_EQ(row.size(), 2u);
  EXPECT_EQ(row[0].i, facts_.rss_samples);
  EXPECT_DOUBLE_EQ(row[1].type == SqlValue::kInt ? static_cast<double>(row[1].i) : row[1].d,
                   facts_.rss_bytes_sum);
}

INSTANTIATE_TEST_SUITE_P(Testdata, SystemParserRealTrace,
                         ::testing::Values("process_stats_multiuser.pb",
                                           "android_sched_binder_10s.perfetto-trace"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
}  // namespace fathom
