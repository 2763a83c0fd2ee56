// Helpers shared by the recorder tests: a temp dir, running the recorder binary, reading
// its trace with libprotobuf and querying it with Fathom's core.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"

namespace fathom::recorder_test {

// A fresh directory under $TMPDIR, removed (recursively) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void WriteStringToFile(const std::string& path, const std::string& data);
std::string ReadFileOrDie(const std::string& path);
void CopyFile(const std::string& from, const std::string& to);  // creates parent dirs
void MakeDirs(const std::string& path);

// Starts the recorder with `args`; stderr goes to `stderr_path` (if not empty).
pid_t SpawnRecorder(const std::vector<std::string>& args, const std::string& stderr_path = "");
// Waits for pid; returns its exit code, or 128 + signal.
int WaitExit(pid_t pid);
int RunRecorder(const std::vector<std::string>& args, std::string* stderr_text = nullptr);

// Config text (protobuf text format) → serialized TraceConfig, via libprotobuf.
std::string ConfigFromText(const std::string& text);

bool ParseTrace(const std::string& path, perfetto::protos::Trace* trace);

// First row's first column of a query, as int64 (0 on error, with a test failure).
int64_t QueryInt(TraceProcessor& tp, const std::string& sql);
double QueryDouble(TraceProcessor& tp, const std::string& sql);

// Runs protoc --decode=perfetto.protos.Trace on a file; returns protoc's exit code.
int ProtocDecode(const std::string& trace_path, std::string* text_out);

}  // namespace fathom::recorder_test
