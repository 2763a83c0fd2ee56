// Upstream Perfetto v58.2's offline diff tests (../shared/difftests-upstream),
// each case its own test: load trace.pb, run query.sql, compare the CSV with
// upstream's expected.out. scope.tsv says which cases are Fathom's import
// target (issue 27); known_differences.md lists every in-scope case that
// still answers differently, each with its reason.
//
// A listed case that fails is skipped with its reason; a listed case that
// passes fails, so the list cannot go stale. FATHOM_CONFORMANCE_ALL=1 runs the
// listed cases as ordinary tests, and FATHOM_CONFORMANCE_SCOPE=perfettosql
// (or out-of-scope-for-now, or all) selects other cases.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/sql/result_printer.h"
#include "core/trace_processor.h"
#include "tests/conformance/expected_output.h"
#include "tests/conformance/suite_index.h"

namespace fathom::conformance {
namespace {

namespace fs = std::filesystem;

const fs::path kSuiteDir = fs::path(FATHOM_SHARED_DIR) / "difftests-upstream";
const fs::path kSourceDir = FATHOM_CONFORMANCE_SOURCE_DIR;

std::string SelectedScope() {
  const char* s = std::getenv("FATHOM_CONFORMANCE_SCOPE");
  return s && *s ? s : "import-in-scope";
}

const std::map<std::string, std::string>& KnownDifferences() {
  static const auto known = ReadKnownDifferences(kSourceDir / "known_differences.md");
  return known;
}

// Upstream's standard library, which the uses_stdlib cases include from.
const fs::path kStdlibDir = fs::path(FATHOM_SHARED_DIR) / "perfetto-stdlib";

const std::map<std::string, std::string>& KnownStdlibDifferences() {
  static const auto known = ReadKnownDifferences(kSourceDir / "known_stdlib.md");
  return known;
}

// Loads the case and returns Fathom's answer, or an error text that cannot
// equal any expected.out. `stdlib` is the library folder ("" for none).
std::string AnswerOf(const fs::path& dir, const std::string& stdlib = "") {
  TraceProcessor tp;
  tp.set_import_options(UpstreamRunnerOptions());
  if (!stdlib.empty()) {
    Status set = tp.sql_packages().SetStdlib(stdlib);
    if (!set.ok()) return "<stdlib: " + set.message() + ">";
  }
  Status st = tp.LoadFile((dir / "trace.pb").string());
  if (!st.ok()) return "<load failed: " + st.message() + ">";
  auto it = tp.Query(ReadWholeFile(dir / "query.sql"));
  std::string out;
  st = PrintResults(it.get(), ResultFormat::kCsv, &out);
  if (!st.ok()) return "<query failed: " + st.message() + ">";
  return out;
}

class UpstreamSuite : public ::testing::TestWithParam<std::string> {};

TEST_P(UpstreamSuite, MatchesUpstream) {
  const std::string& folder = GetParam();
  const fs::path dir = kSuiteDir / folder;
  const std::string got = NormaliseDiffOutput(AnswerOf(dir));
  const std::string want = NormaliseDiffOutput(ReadWholeFile(dir / "expected.out"));
  const bool run_all = std::getenv("FATHOM_CONFORMANCE_ALL") != nullptr;
  auto known = KnownDifferences().find(folder);
  if (known != KnownDifferences().end() && !run_all) {
    if (got == want)
      FAIL() << folder << " now matches upstream: remove it from known_differences.md";
    GTEST_SKIP() << known->second;
  }
  EXPECT_EQ(got, want) << "case " << dir.string();
}

std::vector<std::string> SelectedCases() {
  if (!fs::exists(kSuiteDir)) return {};
  return CasesInScope(kSourceDir / "scope.tsv", SelectedScope());
}

INSTANTIATE_TEST_SUITE_P(V58, UpstreamSuite, ::testing::ValuesIn(SelectedCases()),
                         [](const auto& info) { return TestNameOf(info.param); });

// The perfettosql cases (issue 28: the 241 that include standard library
// modules and the language's own), run with the library at
// ../shared/perfetto-stdlib as --override-stdlib gives it (upstream runs
// every case with its library built in). known_stdlib.md lists the ones that
// still differ.
class StdlibSuite : public ::testing::TestWithParam<std::string> {};

TEST_P(StdlibSuite, MatchesUpstream) {
  const std::string& folder = GetParam();
  const fs::path dir = kSuiteDir / folder;
  const std::string got = NormaliseDiffOutput(AnswerOf(dir, kStdlibDir.string()));
  const std::string want = NormaliseDiffOutput(ReadWholeFile(dir / "expected.out"));
  const bool run_all = std::getenv("FATHOM_CONFORMANCE_ALL") != nullptr;
  auto known = KnownStdlibDifferences().find(folder);
  if (known != KnownStdlibDifferences().end() && !run_all) {
    if (got == want) FAIL() << folder << " now matches upstream: remove it from known_stdlib.md";
    GTEST_SKIP() << known->second;
  }
  EXPECT_EQ(got, want) << "case " << dir.string();
}

std::vector<std::string> StdlibCases() {
  if (!fs::exists(kSuiteDir) || !fs::exists(kStdlibDir)) return {};
  return CasesInScope(kSourceDir / "scope.tsv", "perfettosql");
}

INSTANTIATE_TEST_SUITE_P(V58, StdlibSuite, ::testing::ValuesIn(StdlibCases()),
                         [](const auto& info) { return TestNameOf(info.param); });

TEST(StdlibSuiteSet, ListNamesOnlyStdlibCases) {
  if (!fs::exists(kSuiteDir) || !fs::exists(kStdlibDir)) GTEST_SKIP() << "no suite or stdlib";
  const auto cases = StdlibCases();
  EXPECT_EQ(cases.size(), 368u) << "scope.tsv has 368 perfettosql cases";
  std::map<std::string, bool> scoped;
  for (const auto& c : cases) scoped[c] = true;
  size_t using_stdlib = 0;
  for (const auto& c : CasesUsingStdlib(kSuiteDir / "INDEX.tsv")) using_stdlib += scoped.count(c);
  EXPECT_EQ(using_stdlib, 241u) << "issue 28 names 241 uses_stdlib cases, all perfettosql";
  std::map<std::string, bool> in_suite;
  for (const auto& c : cases) in_suite[c] = true;
  for (const auto& [folder, reason] : KnownStdlibDifferences()) {
    EXPECT_TRUE(in_suite.count(folder)) << folder << " is listed but is not a perfettosql case";
    EXPECT_FALSE(reason.empty()) << folder << " is listed without a reason";
  }
}

TEST(UpstreamSuiteSet, ScopeAndListAgree) {
  if (!fs::exists(kSuiteDir)) GTEST_SKIP() << "no " << kSuiteDir.string();
  const auto in_scope = CasesInScope(kSourceDir / "scope.tsv", "import-in-scope");
  EXPECT_EQ(in_scope.size(), 287u) << "issue 27 names 287 import-in-scope cases";
  for (const auto& c : in_scope)
    EXPECT_TRUE(fs::exists(kSuiteDir / c / "expected.out")) << c << " is not in the suite";
  std::map<std::string, bool> scoped;
  for (const auto& c : in_scope) scoped[c] = true;
  for (const auto& [folder, reason] : KnownDifferences()) {
    EXPECT_TRUE(scoped.count(folder)) << folder << " is listed but not import-in-scope";
    EXPECT_FALSE(reason.empty()) << folder << " is listed without a reason";
  }
}

}  // namespace
}  // namespace fathom::conformance
