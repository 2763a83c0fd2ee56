#include "tests/conformance/difftester/answers.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/sql/result_printer.h"
#include "core/trace_processor.h"

namespace fathom::difftester {
namespace {

constexpr char kSepColumn[] = "fathom_difftester_sep";
constexpr char kSepValue[] = "FATHOM_DIFFTESTER_SEP";

std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

std::string TrimAnswer(const std::string& s) {
  size_t b = 0;
  while (b < s.size() && (s[b] == '\n' || s[b] == '\r')) ++b;
  size_t e = s.size();
  while (e > b && (s[e - 1] == '\n' || s[e - 1] == '\r' || s[e - 1] == ' ')) --e;
  return s.substr(b, e - b) + "\n";
}

Answers AnswersFromFathom(const std::string& trace_path, const std::vector<std::string>& sqls) {
  Answers a;
  TraceProcessor tp;
  Status st = tp.LoadFile(trace_path);
  if (!st.ok()) {
    a.load_error = st.message();
    return a;
  }
  for (const std::string& sql : sqls) {
    auto it = tp.Query(sql);
    std::string out;
    st = PrintResults(it.get(), ResultFormat::kCsv, &out);
    a.results.push_back(st.ok() ? TrimAnswer(out) : "<error: " + st.message() + ">\n");
  }
  return a;
}

std::string FindReferenceBinary(const std::string& shared_dir) {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("FATHOM_REFERENCE_TP"); env && *env)
    return fs::exists(env) ? env : "";
  const fs::path p = fs::path(shared_dir) / "oracle" / "trace_processor_shell";
  return fs::exists(p) ? p.string() : "";
}

Answers AnswersFromReference(const std::string& binary, const std::string& trace_path,
                             const std::vector<std::string>& sqls, const std::string& scratch) {
  {
    std::ofstream q(scratch, std::ios::trunc);
    for (const std::string& sql : sqls)
      q << sql << ";\nselect '" << kSepValue << "' as " << kSepColumn << ";\n";
  }
  const std::string cmd = ShellQuote(binary) + " query -f " + ShellQuote(scratch) + " " +
                          ShellQuote(trace_path) + " 2>/dev/null";
  std::string out;
  if (FILE* f = popen(cmd.c_str(), "r")) {
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    pclose(f);
  }
  Answers a;
  std::istringstream in(out);
  std::string line, current, prev;
  const std::string sep_header = std::string("\"") + kSepColumn + "\"";
  const std::string sep_value = std::string("\"") + kSepValue + "\"";
  while (std::getline(in, line)) {
    if (line == sep_value && prev == sep_header) {
      // Drop the sentinel's header line from the answer before it.
      current.resize(current.size() - sep_header.size() - 1);
      a.results.push_back(TrimAnswer(current));
      current.clear();
      prev.clear();
      continue;
    }
    current += line + "\n";
    prev = line;
  }
  if (a.results.empty() && sqls.size() > 0) a.load_error = "reference gave no answer";
  // A failing query stops the reference: the rest have no answer.
  while (a.results.size() < sqls.size()) a.results.push_back("<error: no answer>\n");
  return a;
}

}  // namespace fathom::difftester
