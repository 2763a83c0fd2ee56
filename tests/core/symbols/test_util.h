// Helpers of the symbols tests: run fathom-cli, query a trace.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/trace_processor.h"
#include "tests/core/trace_test_util.h"

namespace fathom::symbols_test {

struct RunResult {
  int code = -1;
  std::string output;  // stdout and stderr
};

// Runs a shell command line; `env` is prefixed ("A=b C=d ").
inline RunResult RunCmd(const std::string& cmd) {
  RunResult r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline std::string Quote(const std::string& s) { return "'" + s + "'"; }

inline std::unique_ptr<TraceProcessor> Load(const std::string& path) {
  auto tp = std::make_unique<TraceProcessor>();
  Status st = tp->LoadFile(path);
  EXPECT_TRUE(st.ok()) << path << ": " << st.message();
  return tp;
}

// Every row, columns joined with '|' (NULL as "<null>").
inline std::vector<std::string> Rows(TraceProcessor& tp, const std::string& sql) {
  return testing::JoinedRows(tp, sql, "<null>");
}

}  // namespace fathom::symbols_test
