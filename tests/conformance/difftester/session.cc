#include "tests/conformance/difftester/session.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>

#include "tests/conformance/difftester/answers.h"
#include "tests/conformance/difftester/csv_table.h"

namespace fathom::difftester {
namespace {

namespace fs = std::filesystem;

void WriteFile(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// "slice.arg_set_id" -> "slice_arg_set_id": a folder name.
std::string CaseNameOf(const std::string& cls) {
  std::string name;
  for (char c : cls) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

std::vector<std::string> SqlOf(const std::vector<BatteryQuery>& queries) {
  std::vector<std::string> sqls;
  for (const BatteryQuery& q : queries) sqls.push_back(q.sql);
  return sqls;
}

}  // namespace

DiffSession::DiffSession(std::string reference_binary, std::string work_dir)
    : reference_(std::move(reference_binary)), work_dir_(std::move(work_dir)) {
  fs::create_directories(work_dir_);
}

bool DiffSession::Prepare(std::string* error) {
  // Columns do not depend on the trace; any small trace will do.
  const std::string probe = WriteTrace(1, FeaturesForSeed(1));
  std::vector<std::string> fathom_sql, ref_sql;
  for (const TableSpec& t : BatteryTables()) {
    fathom_sql.push_back("select * from " + t.table + " limit 0");
    // pragma_table_info answers (with no rows) even for a missing table,
    // so one unknown table cannot stop the reference's whole batch.
    ref_sql.push_back("select name from pragma_table_info('" + t.table + "')");
  }
  const Answers f = AnswersFromFathom(probe, fathom_sql);
  const Answers r = AnswersFromReference(reference_, probe, ref_sql, work_dir_ + "/probe.sql");
  if (!f.load_error.empty() || !r.load_error.empty()) {
    *error = "probe trace: fathom: " + f.load_error + " reference: " + r.load_error;
    return false;
  }
  std::map<std::string, std::vector<std::string>> common;
  for (size_t i = 0; i < BatteryTables().size(); ++i) {
    const std::string& table = BatteryTables()[i].table;
    const CsvTable fathom_cols = ParseCsv(f.results[i]);
    std::set<std::string> have(fathom_cols.header.begin(), fathom_cols.header.end());
    for (const CsvRow& row : ParseCsv(r.results[i]).rows) {
      std::string col = row.empty() ? "" : row[0];
      if (col.size() >= 2 && col.front() == '"') col = col.substr(1, col.size() - 2);
      if (have.count(col))
        common[table].push_back(col);
      else
        schema_.push_back({"schema:" + table + "." + col, table, "column missing in Fathom"});
    }
  }
  battery_ = BuildBattery(common);
  return true;
}

std::string DiffSession::WriteTrace(uint64_t seed, const Features& f) {
  const std::string path = work_dir_ + "/seed_" + std::to_string(seed) + ".pb";
  WriteFile(path, GenerateTrace(seed, f));
  return path;
}

std::vector<Divergence> DiffSession::Compare(const std::string& trace_path,
                                             const std::vector<BatteryQuery>& queries) {
  const std::vector<std::string> sqls = SqlOf(queries);
  const Answers f = AnswersFromFathom(trace_path, sqls);
  const Answers r = AnswersFromReference(reference_, trace_path, sqls, work_dir_ + "/battery.sql");
  if (!f.load_error.empty()) return {{"load:fathom", "", f.load_error}};
  if (!r.load_error.empty()) return {{"load:reference", "", r.load_error}};
  std::vector<Divergence> out;
  for (size_t i = 0; i < queries.size(); ++i)
    for (Divergence& d :
         CompareAnswers(queries[i].table, f.results[i], r.results[i], queries[i].keyed))
      out.push_back(std::move(d));
  return out;
}

SeedResult DiffSession::RunSeed(uint64_t seed, const Features& features) {
  SeedResult res;
  res.seed = seed;
  const std::string path = WriteTrace(seed, features);
  res.divergences = Compare(path, battery_);
  fs::remove(path);
  return res;
}

bool DiffSession::Reproduces(uint64_t seed, const Features& f, const BatteryQuery& q,
                             const std::string& cls) {
  const std::string path = WriteTrace(seed, f);
  for (const Divergence& d : Compare(path, {q}))
    if (d.cls == cls) return true;
  return false;
}

std::string DiffSession::SaveCase(uint64_t seed, const Divergence& d,
                                  const std::string& cases_dir) {
  const BatteryQuery* query = nullptr;
  for (const BatteryQuery& q : battery_)
    if (q.table == d.table) query = &q;
  if (!query) return "";
  Features f = FeaturesForSeed(seed);
  if (!Reproduces(seed, f, *query, d.cls)) return "";
  for (const std::string& name : FeatureNames()) {
    bool* on = FeatureByName(&f, name);
    if (!*on) continue;
    *on = false;
    if (!Reproduces(seed, f, *query, d.cls)) *on = true;
  }
  for (int* size : {&f.windows, &f.processes, &f.cpus}) {
    const int was = *size;
    *size = 1;
    if (!Reproduces(seed, f, *query, d.cls)) *size = was;
  }
  const std::string trace = GenerateTrace(seed, f);
  const std::string name = CaseNameOf(d.cls) + "_seed" + std::to_string(seed);
  const fs::path dir = fs::path(cases_dir) / name;
  fs::create_directories(dir);
  WriteFile(dir / "trace.pb", trace);
  WriteFile(dir / "query.sql", query->sql + ";\n");
  const Answers r = AnswersFromReference(reference_, (dir / "trace.pb").string(), {query->sql},
                                         work_dir_ + "/case.sql");
  WriteFile(dir / "expected.out", r.results.empty() ? "" : r.results[0]);
  WriteFile(dir / "origin.txt", "class: " + d.cls + "\nseed: " + std::to_string(seed) +
                                    "\nfeatures: " + DescribeFeatures(f) + "\n");
  return name;
}

}  // namespace fathom::difftester
