// base/read_only_file.h on real files: positioned reads, and what the path
// names after the file is moved, deleted or replaced by another of the same
// size (a heap dump's viewer reads strings and bitmaps back long after the load).
#include "base/read_only_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace fathom::platform {
namespace {

namespace fs = std::filesystem;

class ReadOnlyFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fathom_rof_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    path_ = dir_ / "dump bytes.bin";
    Write(path_, "0123456789abcdef");
  }
  void TearDown() override { fs::remove_all(dir_); }
  static void Write(const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
  }
  fs::path dir_, path_;
};

TEST_F(ReadOnlyFileTest, ReadsAtOffsetsWhileThePathIsTheSameFile) {
  ReadOnlyFile f(path_.string());
  ASSERT_TRUE(f.is_open());
  EXPECT_EQ(f.size(), 16u);
  std::string error;
  EXPECT_EQ(f.CheckPath(&error), ReadOnlyFile::PathState::kSame);
  char buf[4] = {};
  ASSERT_TRUE(f.ReadAt(10, buf, 4));
  EXPECT_EQ(std::string(buf, 4), "abcd");
  EXPECT_FALSE(f.ReadAt(14, buf, 4));  // past the end: a short read
}

TEST_F(ReadOnlyFileTest, MovedDeletedAndReplacedFilesAreToldApart) {
  ReadOnlyFile f(path_.string());
  ASSERT_TRUE(f.is_open());
  std::string error;
  fs::rename(path_, dir_ / "moved.bin");
  EXPECT_EQ(f.CheckPath(&error), ReadOnlyFile::PathState::kMissing);
  // Another file of the same size at the path is not the one opened.
  Write(dir_ / "other.bin", "fedcba9876543210");
  fs::rename(dir_ / "other.bin", path_);
  EXPECT_EQ(f.CheckPath(&error), ReadOnlyFile::PathState::kChanged);
  // The open file still reads its own bytes.
  char buf[2] = {};
  ASSERT_TRUE(f.ReadAt(0, buf, 2));
  EXPECT_EQ(std::string(buf, 2), "01");
}

TEST_F(ReadOnlyFileTest, AMissingFileDoesNotOpen) {
  ReadOnlyFile f((dir_ / "nope.bin").string());
  EXPECT_FALSE(f.is_open());
  char c;
  EXPECT_FALSE(f.ReadAt(0, &c, 1));
}

}  // namespace
}  // namespace fathom::platform
