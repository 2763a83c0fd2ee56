#include "tests/conformance/difftester/report.h"

#include <filesystem>
#include <set>

namespace fathom::difftester {
namespace {

const std::string* SqlOfTable(const DiffSession& s, const std::string& table) {
  for (const BatteryQuery& q : s.battery())
    if (q.table == table) return &q.sql;
  return nullptr;
}

void PrintFirst(const DiffSession& s, uint64_t seed, const Divergence& d, bool known,
                std::ostream& log) {
  log << (known ? "known  " : "NEW    ") << d.cls << "  (seed " << seed << ")\n";
  if (known) return;  // listed with its reason: the class name and seed suffice
  if (const std::string* sql = SqlOfTable(s, d.table)) log << "    query: " << *sql << "\n";
  log << "    " << d.detail << "\n";
}

}  // namespace

RunSummary RunSeeds(DiffSession* session, const RunOptions& o, std::ostream& log) {
  RunSummary sum;
  for (const Divergence& d : session->schema_divergences()) {
    const bool known = IsKnownClass(o.known, d.cls);
    if (!known) ++sum.unknown_classes;
    sum.count[d.cls] = 1;
    if (!known) log << "NEW    " << d.cls << ": " << d.detail << "\n";
  }
  for (uint64_t seed = o.first_seed; seed <= o.last_seed; ++seed) {
    ++sum.seeds;
    Features features = FeaturesForSeed(seed);
    for (const std::string& name : FeatureNames())
      if (("," + o.without + ",").find("," + name + ",") != std::string::npos)
        *FeatureByName(&features, name) = false;
    SeedResult r = session->RunSeed(seed, features);
    std::set<std::string> seen_here;
    for (const Divergence& d : r.divergences) {
      if (!seen_here.insert(d.cls).second) continue;
      const bool first = sum.count[d.cls]++ == 0;
      if (!first) continue;
      sum.first_seed[d.cls] = seed;
      const bool known = IsKnownClass(o.known, d.cls);
      if (!known) ++sum.unknown_classes;
      PrintFirst(*session, seed, d, known, log);
      if (!o.cases_dir.empty() && (!known || o.save_known)) {
        const std::string name = session->SaveCase(seed, d, o.cases_dir);
        log << "    "
            << (name.empty() ? "did not reproduce alone: no case saved"
                             : "saved case " + o.cases_dir + "/" + name)
            << "\n";
      }
    }
  }
  log << "summary: " << sum.seeds << " seeds (" << o.first_seed << ".." << o.last_seed << "), "
      << sum.count.size() << " divergence classes, " << sum.unknown_classes << " not listed\n";
  for (const auto& [cls, n] : sum.count)
    log << "  " << (IsKnownClass(o.known, cls) ? "known " : "NEW   ") << cls << ": " << n
        << " seed(s), first " << (sum.first_seed.count(cls) ? sum.first_seed[cls] : 0) << "\n";
  return sum;
}

RunSummary RunTraces(DiffSession* session, const std::vector<std::string>& traces,
                     const std::map<std::string, std::string>& known, std::ostream& log) {
  RunSummary sum;
  std::set<std::string> shown;
  for (const std::string& path : traces) {
    ++sum.seeds;
    const std::string name = std::filesystem::path(path).filename().string();
    std::set<std::string> seen_here;
    for (const Divergence& d : session->RunTrace(path)) {
      const std::string cls = name + ":" + d.cls;
      if (!seen_here.insert(cls).second) continue;
      shown.insert(cls);
      ++sum.count[cls];
      const bool listed = IsKnownClass(known, cls);
      if (!listed) ++sum.unknown_classes;
      log << (listed ? "known  " : "NEW    ") << cls << "\n";
      if (listed) continue;
      if (const std::string* sql = SqlOfTable(*session, d.table)) log << "    query: " << *sql << "\n";
      log << "    " << d.detail << "\n";
    }
  }
  // A listed class of a trace that was run and no longer diverges.
  for (const auto& [cls, reason] : known) {
    const std::string trace = cls.substr(0, cls.find(':'));
    bool ran = false;
    for (const std::string& path : traces)
      ran |= std::filesystem::path(path).filename().string() == trace;
    if (!ran || cls.back() == '*' || shown.count(cls)) continue;
    ++sum.unknown_classes;
    log << "GONE   " << cls << ": no longer diverges; delete its line\n";
  }
  log << "summary: " << sum.seeds << " traces, " << sum.count.size() << " divergence classes, "
      << sum.unknown_classes << " not listed or gone\n";
  return sum;
}

}  // namespace fathom::difftester
