// record/output_file.h: the output path is refused for the reasons a pull
// would fail later, and every way a pull ends leaves either the trace under
// its name, a documented OUT.partial, or nothing, with a message naming
// where the trace is. The pulls go through a TargetShell whose Pull writes
// real files, so the temp handling runs exactly as in a recording.
#include "record/output_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace fathom::record {
namespace {
namespace fs = std::filesystem;

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fathom-output-file-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> Files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  fs::path dir_;
};

TEST_F(OutputFileTest, RefusesWhatAPullCouldNotWrite) {
  EXPECT_NE(CheckOutputPath(dir_.string()).message().find("is a directory"), std::string::npos);
  EXPECT_NE(CheckOutputPath(Path("missing/t.pftrace")).message().find("does not exist"),
            std::string::npos);
  std::ofstream(Path("file")) << "x";
  EXPECT_NE(CheckOutputPath(Path("file/t.pftrace")).message().find("is not a directory"),
            std::string::npos);
  ASSERT_EQ(::mkfifo(Path("fifo").c_str(), 0600), 0);
  EXPECT_NE(CheckOutputPath(Path("fifo")).message().find("not a regular file"), std::string::npos);
  // /proc takes no new files, even from root (where permission bits would not stop it).
  EXPECT_NE(CheckOutputPath("/proc/t.pftrace").message().find("not writable"), std::string::npos);
  EXPECT_FALSE(CheckOutputPath("").ok());
}

TEST_F(OutputFileTest, AcceptsAWritablePathAndLeavesNothing) {
  EXPECT_TRUE(CheckOutputPath(Path("t.pftrace")).ok());
  std::ofstream(Path("old.pftrace")) << "an earlier trace, replaced by the rename";
  EXPECT_TRUE(CheckOutputPath(Path("old.pftrace")).ok());
  EXPECT_EQ(Files(), std::vector<std::string>({"old.pftrace"}));
}

// A target whose Pull writes `bytes` into the local file, then fails with
// `error` (or succeeds when it is empty); with `wait_for_cancel` it fails
// only once the token is cancelled, as a pull abandoned by the user does.
class PullingTarget : public TargetShell {
 public:
  std::string bytes, error;
  std::string Describe() const override { return "test target"; }
  Result<adb::ShellResult> Run(const std::string&, std::string_view, Deadline,
                               const CancelToken&) override {
    return ErrorStatus("not used");
  }
  Status Push(const std::string&, const std::string&, uint32_t, Deadline,
              const CancelToken&) override {
    return ErrorStatus("not used");
  }
  Status Pull(const std::string&, const std::string& local, const std::function<void(uint64_t)>&,
              Deadline, const CancelToken&) override {
    std::ofstream(local, std::ios::binary) << bytes;
    return error.empty() ? Status::Ok() : ErrorStatus(error);
  }
};

TEST_F(OutputFileTest, CompletePullIsRenamed) {
  PullingTarget target;
  target.bytes = "trace";
  ASSERT_TRUE(PullTrace(target, "/tmp/fathom.x/trace.pftrace", Path("t.pftrace"), {}, {}).ok());
  EXPECT_EQ(Files(), std::vector<std::string>({"t.pftrace"}));
}

TEST_F(OutputFileTest, AbandonedPullRemovesItsTempAndNamesTheTargetCopy) {
  PullingTarget target;
  target.bytes = "half a tra";
  target.error = "cancelled";
  CancelToken cancel;
  cancel.Cancel();
  Status st = PullTrace(target, "/tmp/fathom.x/trace.pftrace", Path("t.pftrace"), {}, cancel);
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(Files().empty()) << Files().front();
  EXPECT_NE(st.message().find("removed the incomplete " + Path("t.pftrace.part")),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("still on the target at /tmp/fathom.x/trace.pftrace"),
            std::string::npos)
      << st.message();
}

TEST_F(OutputFileTest, FailedPullKeepsWhatArrivedAsPartial) {
  PullingTarget target;
  target.bytes = "half a tra";
  target.error = "lost the connection";
  Status st = PullTrace(target, "/data/misc/perfetto-traces/f.pftrace", Path("t.pftrace"), {}, {});
  EXPECT_EQ(Files(), std::vector<std::string>({"t.pftrace.partial"}));
  EXPECT_NE(st.message().find("still on the target at /data/misc/perfetto-traces/f.pftrace"),
            std::string::npos)
      << st.message();
}

TEST_F(OutputFileTest, FailedPullWithNothingLeavesNothing) {
  PullingTarget target;
  target.error = "no such file";
  Status st = PullTrace(target, "/tmp/fathom.x/trace.pftrace", Path("t.pftrace"), {}, {});
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(Files().empty());
}

}  // namespace
}  // namespace fathom::record
