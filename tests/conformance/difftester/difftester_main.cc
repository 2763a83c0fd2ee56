// fathom-difftester: differential testing of Fathom against upstream's
// trace_processor_shell on generated traces.
//
//   fathom-difftester --seeds 1..10000 [--save-cases DIR] [--save-known]
//                     [--known FILE] [--work DIR] [--reference PATH]
//   fathom-difftester --write-trace SEED OUT.pb    (just the generated trace)
//   fathom-difftester --trace FILE [--trace FILE ...] [--known FILE]
//                     (the battery on real traces; known: real_traces_known.md)
//   --without f1,f2 switches feature families off (names: see --write-trace's output)
//
// Exit status 1 when a divergence class not listed in --known was found.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "tests/conformance/difftester/answers.h"
#include "tests/conformance/difftester/report.h"
#include "tests/conformance/suite_index.h"

namespace {

using namespace fathom::difftester;

// Applies "--without a,b" to a seed's features.
Features Adjusted(uint64_t seed, const std::string& without) {
  Features f = FeaturesForSeed(seed);
  size_t start = 0;
  while (start < without.size()) {
    size_t comma = without.find(',', start);
    if (comma == std::string::npos) comma = without.size();
    if (bool* on = FeatureByName(&f, without.substr(start, comma - start))) *on = false;
    start = comma + 1;
  }
  return f;
}

int Usage() {
  std::cerr << "usage: fathom-difftester --seeds A..B [--save-cases DIR] [--save-known]\n"
               "         [--known FILE] [--work DIR] [--reference PATH]\n"
               "       fathom-difftester --write-trace SEED OUT.pb\n"
               "       fathom-difftester --trace FILE [--trace FILE ...] [--known FILE]\n";
  return 2;
}

bool ParseRange(const std::string& s, uint64_t* a, uint64_t* b) {
  const size_t dots = s.find("..");
  *a = std::strtoull(s.c_str(), nullptr, 10);
  *b = dots == std::string::npos ? *a : std::strtoull(s.c_str() + dots + 2, nullptr, 10);
  return *a >= 1 && *b >= *a;
}

}  // namespace

int main(int argc, char** argv) {
  RunOptions o;
  std::string known_file;  // default: difftester_known.md, or real_traces_known.md with --trace
  std::string work = "/tmp/fathom-difftester";
  std::string reference = FindReferenceBinary(FATHOM_SHARED_DIR);
  std::string without;
  std::vector<std::string> traces;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--without" && i + 1 < argc) without = argv[i + 1];
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--write-trace" && i + 2 < argc) {
      const uint64_t seed = std::strtoull(argv[i + 1], nullptr, 10);
      const Features f = Adjusted(seed, without);
      std::ofstream(argv[i + 2], std::ios::binary) << GenerateTrace(seed, f);
      std::cout << DescribeFeatures(f) << "\n";
      return 0;
    }
    if (a == "--save-known") {
      o.save_known = true;
      continue;
    }
    if (!v) return Usage();
    ++i;
    if (a == "--seeds") {
      if (!ParseRange(v, &o.first_seed, &o.last_seed)) return Usage();
    } else if (a == "--save-cases") {
      o.cases_dir = v;
    } else if (a == "--known") {
      known_file = v;
    } else if (a == "--trace") {
      traces.push_back(v);
    } else if (a == "--work") {
      work = v;
    } else if (a == "--without") {
      o.without = v;
    } else if (a == "--reference") {
      reference = v;
    } else {
      return Usage();
    }
  }
  if (reference.empty()) {
    std::cerr << "no reference trace processor (set FATHOM_REFERENCE_TP)\n";
    return 2;
  }
  if (known_file.empty())
    known_file = std::string(FATHOM_CONFORMANCE_SOURCE_DIR) +
                 (traces.empty() ? "/difftester_known.md" : "/real_traces_known.md");
  o.known = fathom::conformance::ReadKnownDifferences(known_file);
  DiffSession session(reference, work);
  std::string error;
  if (!session.Prepare(&error)) {
    std::cerr << error << "\n";
    return 2;
  }
  const RunSummary sum = traces.empty() ? RunSeeds(&session, o, std::cout)
                                        : RunTraces(&session, traces, o.known, std::cout);
  return sum.unknown_classes ? 1 : 0;
}
