// A query's output as upstream's shell prints it (CSV), or "ERROR: message":
// the form the PerfettoSQL tests compare with trace_processor_shell's answers.
#pragma once

#include <string>

#include "core/sql/result_printer.h"
#include "core/trace_processor.h"

namespace fathom {

inline std::string Csv(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  std::string out;
  Status st = PrintResults(it.get(), ResultFormat::kCsv, &out);
  return st.ok() ? out : "ERROR: " + st.message();
}

}  // namespace fathom
