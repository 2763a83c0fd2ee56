// ctest side of the differential tester:
//  - the generator is deterministic and writes parseable traces;
//  - a fixed batch of seeds agrees with the reference trace processor except
//    for the divergence classes listed in difftester_known.md (skipped, with
//    one line, when no reference binary is available);
//  - every trace in ../shared/testdata agrees except for the classes listed
//    in real_traces_known.md;
//  - every saved regression case (cases/*) answers as its expected.out says,
//    unless listed as "case:<name>" in difftester_known.md.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "core/sql/result_printer.h"
#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/conformance/difftester/answers.h"
#include "tests/conformance/difftester/csv_table.h"
#include "tests/conformance/difftester/report.h"
#include "tests/conformance/expected_output.h"
#include "tests/conformance/suite_index.h"

namespace fathom::difftester {
namespace {

namespace fs = std::filesystem;

const fs::path kSourceDir = FATHOM_CONFORMANCE_SOURCE_DIR;

const std::map<std::string, std::string>& Known() {
  static const auto known = conformance::ReadKnownDifferences(kSourceDir / "difftester_known.md");
  return known;
}

TEST(DifftesterGenerator, SameSeedSameBytes) {
  for (uint64_t seed : {1u, 7u, 123u})
    EXPECT_EQ(GenerateTrace(seed, FeaturesForSeed(seed)),
              GenerateTrace(seed, FeaturesForSeed(seed)));
  EXPECT_NE(GenerateTrace(1, FeaturesForSeed(1)), GenerateTrace(2, FeaturesForSeed(2)));
}

TEST(DifftesterGenerator, WritesParseableTraces) {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    perfetto::protos::Trace trace;
    ASSERT_TRUE(trace.ParseFromString(GenerateTrace(seed, FeaturesForSeed(seed)))) << seed;
    EXPECT_GT(trace.packet_size(), 0) << seed;
  }
}

TEST(DifftesterCsv, KeepsStringsAndNumbersApart) {
  const CsvTable t = ParseCsv("\"a\",\"b\"\n1,\"1\"\n\"x,\"\"y\"\"\n z\",[NULL]\n");
  ASSERT_EQ(t.header, (CsvRow{"a", "b"}));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0], (CsvRow{"1", "\"1\""}));
  EXPECT_EQ(t.rows[1], (CsvRow{"\"x,\"y\"\n z\"", "[NULL]"}));
}

// FATHOM_DIFFTESTER_SEEDS=A..B picks the batch; the default is sized to take
// about two minutes on a two-core machine.
void SeedRange(uint64_t* a, uint64_t* b) {
  *a = 1, *b = 60;
  if (const char* env = std::getenv("FATHOM_DIFFTESTER_SEEDS"); env && *env) {
    const std::string s = env;
    *a = std::strtoull(s.c_str(), nullptr, 10);
    const size_t dots = s.find("..");
    *b = dots == std::string::npos ? *a : std::strtoull(s.c_str() + dots + 2, nullptr, 10);
  }
}

TEST(Difftester, SeedsAgreeWithReferenceExceptKnownClasses) {
  const std::string reference = FindReferenceBinary(FATHOM_SHARED_DIR);
  if (reference.empty()) {
    std::cout << "difftester: skipped, no reference trace processor (FATHOM_REFERENCE_TP or "
              << FATHOM_SHARED_DIR << "/oracle/trace_processor_shell)\n";
    return;
  }
  DiffSession session(
      reference,
      (fs::temp_directory_path() / ("fathom-difftester-" + std::to_string(::getpid()))).string());
  std::string error;
  ASSERT_TRUE(session.Prepare(&error)) << error;
  RunOptions o;
  SeedRange(&o.first_seed, &o.last_seed);
  o.known = Known();
  const RunSummary sum = RunSeeds(&session, o, std::cout);
  EXPECT_EQ(sum.unknown_classes, 0)
      << "divergence classes not in difftester_known.md (see above; reproduce with "
         "fathom-difftester --seeds N)";
}

// Issue 27's real-trace battery: every trace of ../shared/testdata through the
// same battery, each divergence listed with its reason in real_traces_known.md
// (a listed class that no longer shows fails too, so the list stays true).
TEST(Difftester, RealTracesAgreeExceptKnown) {
  const std::string reference = FindReferenceBinary(FATHOM_SHARED_DIR);
  const fs::path testdata = fs::path(FATHOM_SHARED_DIR) / "testdata";
  if (reference.empty() || !fs::is_directory(testdata)) {
    std::cout << "difftester: real traces skipped, no reference trace processor or testdata\n";
    return;
  }
  std::vector<std::string> traces;
  for (const auto& e : fs::directory_iterator(testdata))
    if (e.is_regular_file() && e.path().extension() != ".md") traces.push_back(e.path().string());
  std::sort(traces.begin(), traces.end());
  DiffSession session(reference, (fs::temp_directory_path() /
                                  ("fathom-difftester-real-" + std::to_string(::getpid())))
                                     .string());
  std::string error;
  ASSERT_TRUE(session.Prepare(&error)) << error;
  const auto known = conformance::ReadKnownDifferences(kSourceDir / "real_traces_known.md");
  const RunSummary sum = RunTraces(&session, traces, known, std::cout);
  EXPECT_GT(sum.seeds, 0u);
  EXPECT_EQ(sum.unknown_classes, 0)
      << "real-trace divergence classes not in real_traces_known.md, or listed and gone (see "
         "above; reproduce with fathom-difftester --trace FILE)";
}

std::string FathomAnswer(const fs::path& dir) {
  TraceProcessor tp;
  Status st = tp.LoadFile((dir / "trace.pb").string());
  if (!st.ok()) return "<load failed: " + st.message() + ">";
  auto it = tp.Query(conformance::ReadWholeFile(dir / "query.sql"));
  std::string out;
  st = PrintResults(it.get(), ResultFormat::kCsv, &out);
  return st.ok() ? out : "<query failed: " + st.message() + ">";
}

TEST(Difftester, RegressionCases) {
  const fs::path cases = kSourceDir / "cases";
  if (!fs::exists(cases)) GTEST_SKIP() << "no saved cases";
  for (const auto& entry : fs::directory_iterator(cases)) {
    if (!fs::exists(entry.path() / "expected.out")) continue;
    const std::string name = entry.path().filename().string();
    const std::string got = conformance::NormaliseDiffOutput(FathomAnswer(entry.path()));
    const std::string want =
        conformance::NormaliseDiffOutput(conformance::ReadWholeFile(entry.path() / "expected.out"));
    if (Known().count("case:" + name)) {
      EXPECT_NE(got, want) << name << " now matches: remove case:" << name
                           << " from difftester_known.md";
      continue;
    }
    EXPECT_EQ(got, want) << "case " << entry.path().string();
  }
}

}  // namespace
}  // namespace fathom::difftester
