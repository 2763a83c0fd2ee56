// Perfetto's own trace processor reads the collector's traces as Fathom does: the same
// mappings, callsites and allocation rows, on the clock upstream expects for heap dumps.
// The reference is upstream's trace_processor_shell in ../shared/oracle (skipped when
// absent, as in a user's clone).
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include <filesystem>
#include <string>

#include "core/sql/result_printer.h"
#include "core/trace_processor.h"

namespace {

std::string Output(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  pclose(p);
  return out;
}

// The oracle's CSV form, as `fathom-cli query --format csv` prints it.
std::string FathomCsv(const std::string& trace, const std::string& sql) {
  fathom::TraceProcessor tp;
  fathom::Status st = tp.LoadFile(trace);
  EXPECT_TRUE(st.ok()) << st.message();
  std::string out;
  auto it = tp.Query(sql);
  EXPECT_TRUE(fathom::PrintResults(it.get(), fathom::ResultFormat::kCsv, &out).ok());
  return out;
}

TEST(HeapprofUpstream, OracleReadsTheSameProfile) {
  std::string oracle = std::string(FATHOM_SHARED_DIR) + "/oracle/trace_processor_shell";
  if (!std::filesystem::exists(oracle)) GTEST_SKIP() << "no oracle at " << oracle;
  std::string out = testing::TempDir() + "/upstream_reads.pftrace";
  std::string cmd = std::string(HEAPPROFD) + " --lib " + HEAPPROF_LIB + " --interval 512 -o " +
                    out + " -- " + APIS_PROG + " >/dev/null 2>&1";
  ASSERT_EQ(WEXITSTATUS(system(cmd.c_str())), 0) << cmd;
  const std::string sql =
      "select count(*) as n from stack_profile_callsite;\n"
      "select name from stack_profile_mapping order by name;\n"
      "select ts, count(*) as rows, sum(size) as size, sum(count) as count "
      "from heap_profile_allocation group by ts order by ts;\n"
      "select f.name, count(*) as n from stack_profile_frame f "
      "group by f.name order by f.name;\n";
  std::string sql_file = testing::TempDir() + "/upstream_reads.sql";
  FILE* f = fopen(sql_file.c_str(), "w");
  ASSERT_TRUE(f);
  fputs(sql.c_str(), f);
  fclose(f);
  std::string want = Output(oracle + " query -f " + sql_file + " " + out + " 2>/dev/null");
  ASSERT_NE(want.find("\"rows\""), std::string::npos) << want;
  // A profile with allocations: an empty answer would agree trivially.
  ASSERT_EQ(want.find("\"count\"\n\n"), std::string::npos) << want;
  EXPECT_EQ(FathomCsv(out, sql), want);
}

}  // namespace
