// Perfetto's standard library as test input (read from FATHOM_SHARED_DIR,
// never copied into the project): every statement of every module must
// tokenize, split and parse; and including each module on an empty trace
// must fail, when it fails, with an error value, never a crash. The second
// figure (modules that include cleanly) grows as Fathom gains the library's
// intrinsic functions; it is printed, not pinned.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/sql/perfetto_sql/statement.h"
#include "core/sql/result_printer.h"
#include "core/trace_processor.h"

namespace fathom::psql {
namespace {

namespace fs = std::filesystem;

fs::path StdlibDir() { return fs::path(FATHOM_SHARED_DIR) / "perfetto-stdlib"; }

std::vector<fs::path> ModuleFiles() {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(StdlibDir(), ec), end; !ec && it != end;
       it.increment(ec))
    if (it->is_regular_file() && it->path().extension() == ".sql") out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(PerfettoStdlib, EveryModuleParses) {
  const std::vector<fs::path> files = ModuleFiles();
  if (files.empty()) GTEST_SKIP() << "no " << StdlibDir();
  size_t parsed = 0, statements = 0;
  for (const fs::path& f : files) {
    const std::string text = Read(f);
    bool ok = true;
    for (const StatementSpan& span : SplitStatements(text)) {
      ++statements;
      ParseResult r =
          ParseStatement(std::string_view(text).substr(span.begin, span.end - span.begin));
      if (!r.ok) {
        ok = false;
        ADD_FAILURE() << f << " offset "
                      << span.begin + static_cast<size_t>(std::max(0L, r.error.offset)) << ": "
                      << r.error.message;
      }
    }
    parsed += ok;
  }
  printf("perfetto-stdlib: %zu of %zu modules parse (%zu statements)\n", parsed, files.size(),
         statements);
  EXPECT_EQ(parsed, files.size());
}

TEST(PerfettoStdlib, IncludingEachModuleGivesAValueNotACrash) {
  const std::vector<fs::path> files = ModuleFiles();
  if (files.empty()) GTEST_SKIP() << "no " << StdlibDir();
  size_t included = 0, total = 0;
  for (const fs::path& f : files) {
    fs::path rel = fs::relative(f, StdlibDir()).replace_extension();
    if (*rel.begin() == "prelude") continue;  // upstream's layer over its own tables
    std::string key;
    for (const fs::path& part : rel) key += (key.empty() ? "" : ".") + part.string();
    TraceProcessor tp;
    ASSERT_TRUE(tp.sql_packages().SetStdlib(StdlibDir().string()).ok());
    auto it = tp.Query("INCLUDE PERFETTO MODULE " + key);
    while (it->NextResultSet()) {
    }
    ++total;
    included += it->status().ok();
  }
  printf("perfetto-stdlib: %zu of %zu non-prelude modules include on an empty trace\n", included,
         total);
  EXPECT_GT(total, 0u);
}

// Modules that need nothing Fathom lacks answer as upstream does (expected
// CSV from trace_processor_shell v58.2 with its built-in library).
TEST(PerfettoStdlib, ModulesOverFathomsTablesAnswerAsUpstream) {
  const fs::path trace =
      fs::path(FATHOM_SHARED_DIR) / "testdata" / "android_sched_binder_10s.perfetto-trace";
  if (ModuleFiles().empty() || !fs::exists(trace))
    GTEST_SKIP() << "no stdlib or trace in " FATHOM_SHARED_DIR;
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(trace.string()).ok());
  ASSERT_TRUE(tp.sql_packages().SetStdlib(StdlibDir().string()).ok());
  auto csv = [&](const std::string& sql) {
    auto it = tp.Query(sql);
    std::string out;
    Status st = PrintResults(it.get(), ResultFormat::kCsv, &out);
    return st.ok() ? out : "ERROR: " + st.message();
  };
  EXPECT_EQ(csv("INCLUDE PERFETTO MODULE slices.with_context; select utid, count(*) c, sum(dur) d, "
                "min(ts) t "
                "from thread_slice group by utid order by c desc, utid limit 5"),
            "\"utid\",\"c\",\"d\",\"t\"\n"
            "20,520,9304601601,789373049269\n"
            "142,277,4902964043,790673849725\n"
            "18,243,4305392059,789373072116\n"
            "74,52,15614770,789576850768\n"
            "60,51,7930229,789549938961\n");
  EXPECT_EQ(csv("INCLUDE PERFETTO MODULE time.conversion; select time_from_ms(3) a, "
                "time_to_s(5000000000) b, "
                "time_from_s(2) c"),
            "\"a\",\"b\",\"c\"\n3000000,5,2000000000\n");
}

}  // namespace
}  // namespace fathom::psql
