// Finds the local file to symbolize a trace's mapping with, by path and build
// id, in the order upstream Perfetto documents for PERFETTO_BINARY_PATH. For
// a mapping "/system/lib64/base.apk!libfoo.so" and each root directory:
//   ROOT/system/lib64/base.apk!libfoo.so   ROOT/system/lib64/libfoo.so
//   ROOT/base.apk!libfoo.so                ROOT/libfoo.so
//   ROOT/.build-id/ab/cdef....debug
// then the files indexed by build id (roots that are directory trees given
// with --index, every ELF file under them), and last the mapping path itself
// on this machine (profiles of this computer; often stripped, so the system's
// separate debug files come first: the caller passes /usr/lib/debug as a root,
// see DefaultDebugFileDirectories). A candidate is used only when
// its build id is the mapping's; a mismatch is remembered for the report.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fathom::symbols {

struct FindResult {
  std::optional<std::string> path;      // the file to use
  std::vector<std::string> mismatched;  // files with the right name, wrong build id
};

class BinaryFinder {
 public:
  // `roots`: directories searched by path (FATHOM_BINARY_PATH etc.);
  // `index_dirs`: directory trees whose ELF files are indexed by build id.
  BinaryFinder(std::vector<std::string> roots, std::vector<std::string> index_dirs,
               bool use_local_path = true);

  // `build_id`: raw bytes. Mappings without a build id are never matched:
  // nothing could tell a stale file from the profiled one.
  FindResult Find(const std::string& mapping_path, const std::string& build_id);

  size_t indexed_files() const { return by_build_id_.size(); }

 private:
  void Index(const std::string& dir);
  bool Matches(const std::string& file, const std::string& build_id, FindResult* r);

  std::vector<std::string> roots_;
  bool use_local_path_;
  std::map<std::string, std::string> by_build_id_;  // raw build id -> first file seen
};

// Splits FATHOM_BINARY_PATH and PERFETTO_BINARY_PATH (both colon-separated,
// ';' on Windows) into directories, FATHOM's first.
std::vector<std::string> BinaryPathFromEnvironment();

// Where this platform keeps separate debug files (ROOT/.build-id/ab/cdef....debug,
// as Debian's -dbgsym packages install them): /usr/lib/debug on Linux (what gdb
// and llvm-symbolizer search by default), none elsewhere. Searched as roots.
std::vector<std::string> DefaultDebugFileDirectories();

}  // namespace fathom::symbols
