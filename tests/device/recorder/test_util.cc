#include "test_util.h"

#include <fcntl.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "perfetto/config/trace_config.pb.h"

extern char** environ;

namespace fathom::recorder_test {

TempDir::TempDir() {
  const char* tmp = getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/fathom-rec-XXXXXX";
  char* p = mkdtemp(templ.data());
  path_ = p ? p : "";
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

void MakeDirs(const std::string& path) { std::filesystem::create_directories(path); }

void WriteStringToFile(const std::string& path, const std::string& data) {
  MakeDirs(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << data;
}

std::string ReadFileOrDie(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void CopyFile(const std::string& from, const std::string& to) {
  WriteStringToFile(to, ReadFileOrDie(from));
}

pid_t SpawnRecorder(const std::vector<std::string>& args, const std::string& stderr_path) {
  std::vector<std::string> all = {FATHOM_RECORDER};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (!stderr_path.empty())
    posix_spawn_file_actions_addopen(&fa, 2, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  EXPECT_EQ(rc, 0) << "cannot start " << FATHOM_RECORDER;
  return rc == 0 ? pid : -1;
}

int WaitExit(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

int RunRecorder(const std::vector<std::string>& args, std::string* stderr_text) {
  TempDir dir;
  std::string err = dir / "stderr";
  int rc = WaitExit(SpawnRecorder(args, err));
  if (stderr_text) *stderr_text = ReadFileOrDie(err);
  return rc;
}

std::string ConfigFromText(const std::string& text) {
  perfetto::protos::TraceConfig config;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config)) << text;
  return config.SerializeAsString();
}

bool ParseTrace(const std::string& path, perfetto::protos::Trace* trace) {
  std::string data = ReadFileOrDie(path);
  return trace->ParseFromString(data);
}

int64_t QueryInt(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  if (!it->NextResultSet() || !it->NextRow()) {
    ADD_FAILURE() << sql << ": " << it->status().message();
    return 0;
  }
  SqlValue v = it->Get(0);
  return v.type == SqlValue::kDouble ? static_cast<int64_t>(v.d) : v.i;
}

double QueryDouble(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  if (!it->NextResultSet() || !it->NextRow()) {
    ADD_FAILURE() << sql << ": " << it->status().message();
    return 0;
  }
  SqlValue v = it->Get(0);
  return v.type == SqlValue::kInt ? static_cast<double>(v.i) : v.d;
}

int ProtocDecode(const std::string& trace_path, std::string* text_out) {
  TempDir dir;
  std::string out = dir / "decoded.txt";
  std::string cmd = std::string("'") + FATHOM_PROTOC + "' --decode=perfetto.protos.Trace -I '" +
                    FATHOM_PROTOS_DIR + "' perfetto/trace/trace.proto < '" + trace_path + "' > '" +
                    out + "' 2>&1";
  int rc = system(cmd.c_str());
  if (text_out) *text_out = ReadFileOrDie(out);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace fathom::recorder_test
