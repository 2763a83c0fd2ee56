// Helpers for tests on real JDK heap dumps: shell commands, the oracle's
// CSV answers, Fathom's rows as text, and the fixture program's compile.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/core/trace_test_util.h"

namespace fathom::testing {

namespace hprof_fs = std::filesystem;

inline std::string Shell(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof(buf), p)) > 0;) out.append(buf, n);
    pclose(p);
  }
  return out;
}

inline bool HaveTool(const std::string& name) {
  return system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

inline hprof_fs::path Oracle() {
  return fathom::testing::SharedDir() / "oracle" / "trace_processor_shell";
}

// Rows of a result as text: ints in decimal, strings as they are, "[NULL]".
using Rows = std::vector<std::vector<std::string>>;

inline Rows FathomRows(TraceProcessor& tp, const std::string& sql) {
  Rows rows;
  auto it = tp.Query(sql);
  while (it->NextResultSet() && it->NextRow()) {
    do {
      std::vector<std::string> row;
      for (int i = 0; i < it->column_count(); ++i) {
        SqlValue v = it->Get(i);
        if (v.type == SqlValue::kNull)
          row.push_back("[NULL]");
        else if (v.type == SqlValue::kInt)
          row.push_back(std::to_string(v.i));
        else if (v.type == SqlValue::kString)
          row.push_back(std::string(v.s));
        else
          row.push_back(std::to_string(v.d));
      }
      rows.push_back(std::move(row));
    } while (it->NextRow());
  }
  EXPECT_TRUE(it->status().ok()) << sql << ": " << it->status().message();
  return rows;
}

// The oracle's CSV output of one query (header dropped, quotes removed).
inline Rows OracleRows(const hprof_fs::path& trace, const std::string& sql, const TempDir& dir) {
  hprof_fs::path q = dir.Write("q.sql", sql + ";\n");
  std::string out =
      Shell(Oracle().string() + " query -f " + q.string() + " " + trace.string() + " 2>/dev/null");
  Rows rows;
  std::istringstream in(out);
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> row;
    std::string cell;
    bool quoted = false;
    for (char c : line) {
      if (c == '"')
        quoted = !quoted;
      else if (c == ',' && !quoted)
        row.push_back(std::exchange(cell, {}));
      else
        cell += c;
    }
    row.push_back(cell);
    rows.push_back(std::move(row));
  }
  return rows;
}

struct JvmRun {
  pid_t pid = 0;
  ~JvmRun() {
    if (pid > 0) kill(pid, SIGKILL);
  }
};

// Compiles the fixture into `dir`; false without a JDK.
inline bool CompileFixture(const TempDir& dir) {
  if (!HaveTool("javac") || !HaveTool("java") || !HaveTool("jcmd")) return false;
  std::string src = std::string(FATHOM_HPROF_FIXTURE_DIR) + "/HeapFixture.java";
  return system(("javac -d " + dir.path().string() + " " + src + " >/dev/null 2>&1").c_str()) == 0;
}

// Compiles hprof/explorer/ (ExplorerFixture and its stand-in android
// classes) into `dir`; false without a JDK.
inline bool CompileExplorerFixture(const TempDir& dir) {
  if (!HaveTool("javac") || !HaveTool("java") || !HaveTool("jcmd")) return false;
  std::string src = std::string(FATHOM_HPROF_FIXTURE_DIR) + "/explorer";
  return system(("javac -d " + dir.path().string() + " $(find " + src +
                 " -name '*.java') >/dev/null 2>&1")
                    .c_str()) == 0;
}

// Runs a compiled fixture program (`main`: HeapFixture, ExplorerFixture) and
// dumps its heap with `jcmd GC.heap_dump` into dir/name once it printed
// READY; returns false when it did not start.
inline bool DumpFixtureHeap(const TempDir& dir, const std::string& name,
                            const std::string& main = "HeapFixture") {
  hprof_fs::path out = dir.path() / (name + ".txt");
  JvmRun jvm;
  jvm.pid = static_cast<pid_t>(std::stol(Shell("java -Xmx64m -cp " + dir.path().string() + " " +
                                               main + " > " + out.string() + " 2>&1 & echo $!")));
  for (int i = 0; i < 300 && ReadFileBytes(out).find("READY") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (ReadFileBytes(out).find("READY") == std::string::npos) return false;
  Shell("jcmd " + std::to_string(jvm.pid) + " GC.heap_dump " + (dir.path() / name).string());
  return hprof_fs::exists(dir.path() / name);
}

}  // namespace fathom::testing
