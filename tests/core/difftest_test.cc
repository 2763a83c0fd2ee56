// Runs upstream Perfetto's conformance cases (../shared/difftests): load
// trace.pb, run query.sql, compare the CSV output with expected.out after the
// same normalisation upstream applies. Cases that need later work are listed,
// each with its reason, in difftest_skips.txt.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/sql/result_printer.h"
#include "core/trace_processor.h"
#include "tests/conformance/expected_output.h"

namespace fathom {
namespace {

namespace fs = std::filesystem;

using conformance::NormaliseDiffOutput;
using conformance::ReadWholeFile;

std::map<std::string, std::string> LoadSkips() {
  std::map<std::string, std::string> skips;
  std::ifstream in(std::string(FATHOM_TEST_SOURCE_DIR) + "/difftest_skips.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t sp = line.find(' ');
    skips[line.substr(0, sp)] = sp == std::string::npos ? "" : line.substr(sp + 1);
  }
  return skips;
}

std::vector<std::string> AllCases() {
  std::vector<std::string> names;
  fs::path dir = fs::path(FATHOM_SHARED_DIR) / "difftests";
  if (!fs::exists(dir)) return names;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && fs::exists(e.path() / "trace.pb")) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

class DiffTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DiffTest, MatchesUpstream) {
  static const auto skips = LoadSkips();
  const std::string& name = GetParam();
  if (auto it = skips.find(name); it != skips.end()) GTEST_SKIP() << it->second;
  fs::path dir = fs::path(FATHOM_SHARED_DIR) / "difftests" / name;
  TraceProcessor tp;
  tp.set_import_options(conformance::UpstreamRunnerOptions());
  Status st = tp.LoadFile((dir / "trace.pb").string());
  ASSERT_TRUE(st.ok()) << st.message();
  auto it = tp.Query(ReadWholeFile(dir / "query.sql"));
  std::string out;
  st = PrintResults(it.get(), ResultFormat::kCsv, &out);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(NormaliseDiffOutput(out), NormaliseDiffOutput(ReadWholeFile(dir / "expected.out")));
}

INSTANTIATE_TEST_SUITE_P(Upstream, DiffTest, ::testing::ValuesIn(AllCases()),
                         [](const auto& info) { return info.param; });

TEST(DiffTestSet, SharedCasesArePresent) {
  // Guards against silently running zero cases when ../shared is missing.
  EXPECT_GE(AllCases().size(), 80u) << "expected the 80 shared diff tests in " FATHOM_SHARED_DIR;
}

}  // namespace
}  // namespace fathom
