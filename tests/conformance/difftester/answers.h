// Running one batch of queries on a trace, with Fathom in-process or with
// the reference trace processor (upstream's trace_processor_shell) as a
// child process. Both give one CSV text per query.
#pragma once

#include <string>
#include <vector>

namespace fathom::difftester {

struct Answers {
  std::string load_error;            // non-empty: the trace did not load
  std::vector<std::string> results;  // one per query; "<error: ...>" if it failed
};

Answers AnswersFromFathom(const std::string& trace_path, const std::vector<std::string>& sqls);

// The reference binary: env FATHOM_REFERENCE_TP, else
// <shared_dir>/oracle/trace_processor_shell; "" if neither exists.
std::string FindReferenceBinary(const std::string& shared_dir);

// Runs every query in one invocation (a sentinel query between them marks
// where each answer ends). `scratch` is a file the SQL is written to.
Answers AnswersFromReference(const std::string& binary, const std::string& trace_path,
                             const std::vector<std::string>& sqls, const std::string& scratch);

// The answer trimmed of blank lines around it (both tools' framing differs).
std::string TrimAnswer(const std::string& s);

}  // namespace fathom::difftester
