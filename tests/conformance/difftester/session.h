// One differential-testing session: learns which columns both trace
// processors have, then for each seed generates a trace, answers the
// battery with both, and classifies the differences. It can also shrink a
// divergence to a small witness trace and save it as a regression case.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tests/conformance/difftester/battery.h"
#include "tests/conformance/difftester/compare.h"
#include "tests/conformance/difftester/gen/trace_generator.h"

namespace fathom::difftester {

struct SeedResult {
  uint64_t seed = 0;
  std::vector<Divergence> divergences;
};

class DiffSession {
 public:
  DiffSession(std::string reference_binary, std::string work_dir);

  // Reads both sides' columns for every battery table. Columns only the
  // reference has become "schema:<table>.<column>" divergences.
  bool Prepare(std::string* error);
  const std::vector<Divergence>& schema_divergences() const { return schema_; }
  const std::vector<BatteryQuery>& battery() const { return battery_; }

  SeedResult RunSeed(uint64_t seed, const Features& features);

  // The battery on an existing trace (a real one, not generated).
  std::vector<Divergence> RunTrace(const std::string& trace_path) {
    return Compare(trace_path, battery_);
  }

  // Switches off every feature (and shrinks every size) that the divergence
  // does not need, then writes trace.pb, query.sql and the reference's
  // expected.out to <cases_dir>/<name>/. Returns the case's name, or "" if
  // the divergence did not reproduce.
  std::string SaveCase(uint64_t seed, const Divergence& d, const std::string& cases_dir);

 private:
  // Fathom's and the reference's answers to `queries` on the trace.
  std::vector<Divergence> Compare(const std::string& trace_path,
                                  const std::vector<BatteryQuery>& queries);
  bool Reproduces(uint64_t seed, const Features& f, const BatteryQuery& q, const std::string& cls);
  std::string WriteTrace(uint64_t seed, const Features& f);

  std::string reference_;
  std::string work_dir_;
  std::vector<BatteryQuery> battery_;
  std::vector<Divergence> schema_;
};

}  // namespace fathom::difftester
