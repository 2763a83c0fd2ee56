#include "core/symbols/binary_finder.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "base/utf8_path.h"
#include "core/symbols/elf_build_id.h"

namespace fathom::symbols {
namespace fs = std::filesystem;

namespace {
constexpr std::string_view kApkPrefix = "base.apk!";

bool IsRegularFile(const std::string& p) {
  std::error_code ec;
  return fs::is_regular_file(PathFromUtf8(p), ec);
}

void SplitInto(const char* value, std::vector<std::string>* out) {
  if (!value) return;
#if defined(_WIN32)
  const char kSep = ';';
#else
  const char kSep = ':';
#endif
  std::string v(value);
  size_t start = 0;
  while (start <= v.size()) {
    size_t end = v.find(kSep, start);
    if (end == std::string::npos) end = v.size();
    if (end > start) out->push_back(v.substr(start, end - start));
    start = end + 1;
  }
}
}  // namespace

std::vector<std::string> BinaryPathFromEnvironment() {
  std::vector<std::string> out;
  SplitInto(getenv("FATHOM_BINARY_PATH"), &out);
  SplitInto(getenv("PERFETTO_BINARY_PATH"), &out);
  return out;
}

BinaryFinder::BinaryFinder(std::vector<std::string> roots, std::vector<std::string> index_dirs,
                           bool use_local_path)
    : roots_(std::move(roots)), use_local_path_(use_local_path) {
  for (const std::string& d : index_dirs) Index(d);
}

void BinaryFinder::Index(const std::string& dir) {
  std::error_code ec;
  auto it = fs::recursive_directory_iterator(PathFromUtf8(dir),
                                             fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code ec2;
    if (!it->is_regular_file(ec2)) continue;
    std::string p = PathToUtf8(it->path());
    if (!LooksLikeElf(p)) continue;
    auto id = ReadElfBuildId(p);
    if (id.ok()) by_build_id_.emplace(*id, p);
  }
}

bool BinaryFinder::Matches(const std::string& file, const std::string& build_id, FindResult* r) {
  if (!IsRegularFile(file)) return false;
  auto id = ReadElfBuildId(file);
  if (id.ok() && *id == build_id) return true;
  r->mismatched.push_back(file);
  return false;
}

FindResult BinaryFinder::Find(const std::string& mapping_path, const std::string& build_id) {
  FindResult r;
  if (build_id.empty()) return r;
  size_t slash = mapping_path.rfind('/');
  std::string dirname = slash == std::string::npos ? "" : mapping_path.substr(0, slash);
  std::string filename = slash == std::string::npos ? mapping_path : mapping_path.substr(slash + 1);
  bool apk = filename.compare(0, kApkPrefix.size(), kApkPrefix) == 0;
  std::string no_apk = apk ? filename.substr(kApkPrefix.size()) : filename;
  std::string hex = BuildIdToHex(build_id);
  for (const std::string& root : roots_) {
    std::vector<std::string> candidates = {root + "/" + dirname + "/" + filename};
    if (apk) candidates.push_back(root + "/" + dirname + "/" + no_apk);
    candidates.push_back(root + "/" + filename);
    if (apk) candidates.push_back(root + "/" + no_apk);
    if (hex.size() > 2)
      candidates.push_back(root + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) +
                           ".debug");
    for (std::string& c : candidates) {
      if (Matches(c, build_id, &r)) {
        r.path = c;
        return r;
      }
    }
  }
  if (auto it = by_build_id_.find(build_id); it != by_build_id_.end()) {
    r.path = it->second;
    return r;
  }
  if (use_local_path_ && !mapping_path.empty() && mapping_path[0] == '/' &&
      Matches(mapping_path, build_id, &r))
    r.path = mapping_path;
  return r;
}

std::vector<std::string> DefaultDebugFileDirectories() {
#if defined(__linux__)
  return {"/usr/lib/debug"};
#else
  return {};
#endif
}

}  // namespace fathom::symbols
