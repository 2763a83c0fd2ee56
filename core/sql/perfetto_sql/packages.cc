#include "core/sql/perfetto_sql/packages.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "base/utf8_path.h"

namespace fathom::psql {
namespace fs = std::filesystem;
namespace {

bool IsDir(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(PathFromUtf8(path), ec);
}

// The .sql files under `dir` as module keys prefixed with `prefix`.
void ListModules(const fs::path& dir, const std::string& prefix, std::vector<ModuleFile>* out) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->path().extension() != ".sql") continue;
    fs::path rel = fs::relative(it->path(), dir, ec).replace_extension();
    if (ec) continue;
    std::string key = prefix;
    for (const fs::path& part : rel) key += "." + PathToUtf8(part);
    out->push_back({key, PathToUtf8(it->path())});
  }
}

}  // namespace

const char* StdlibHint() {
  return "Perfetto's standard library is not built into Fathom: point it at a copy of the "
         "library's folder (the one holding android/, sched/, slices/, ...) with "
         "--override-stdlib PATH or the environment variable FATHOM_STDLIB=PATH, and add your "
         "own modules with --add-sql-package PATH[@PKG]";
}

void SplitPackageFlag(const std::string& value, std::string* path, std::string* name) {
  size_t at = value.rfind('@');
  if (at == std::string::npos || at == 0) {
    *path = value;
    name->clear();
  } else {
    *path = value.substr(0, at);
    *name = value.substr(at + 1);
  }
}

Status SqlPackages::Add(const std::string& path, std::string name, bool override) {
  if (!IsDir(path)) return ErrorStatus("SQL package " + path + ": not a folder");
  if (name.empty()) {
    fs::path p = PathFromUtf8(path).lexically_normal();
    name = PathToUtf8(p.has_filename() ? p.filename() : p.parent_path().filename());
  }
  if (name.empty() || name.find('.') != std::string::npos)
    return ErrorStatus("SQL package " + path + ": '" + name +
                       "' cannot name a package (give PATH@NAME)");
  if (!override && !PackageRoot(name).empty())
    return ErrorStatus("SQL package '" + name +
                       "' is already registered; use --override-sql-package to replace it");
  packages_[name] = path;
  return Status::Ok();
}

Status SqlPackages::SetStdlib(const std::string& path) {
  if (!path.empty() && !IsDir(path))
    return ErrorStatus("standard library " + path + ": not a folder");
  stdlib_ = path;
  return Status::Ok();
}

std::string SqlPackages::PackageRoot(const std::string& name) const {
  if (auto it = packages_.find(name); it != packages_.end()) return it->second;
  if (!stdlib_.empty() && !name.empty() && name != "." && name != "..") {
    std::string dir = PathToUtf8(PathFromUtf8(stdlib_) / PathFromUtf8(name));
    if (IsDir(dir)) return dir;
  }
  return "";
}

Result<std::vector<ModuleFile>> SqlPackages::Resolve(const std::string& key) const {
  const size_t dot = key.find('.');
  const std::string pkg = key.substr(0, dot);
  const std::string root = PackageRoot(pkg);
  if (root.empty())
    return ErrorStatus("INCLUDE: no SQL package '" + pkg + "' for module '" + key + "'. " +
                       StdlibHint());
  std::vector<std::string> parts;
  for (size_t b = dot; b != std::string::npos;) {
    size_t e = key.find('.', b + 1);
    parts.push_back(key.substr(b + 1, e == std::string::npos ? std::string::npos : e - b - 1));
    b = e;
  }
  fs::path rel;
  const bool wildcard = !parts.empty() && parts.back() == "*";
  if (wildcard) parts.pop_back();
  for (const std::string& p : parts) {
    if (p.empty() || p == "." || p == ".." || p == "*")
      return ErrorStatus("INCLUDE: '" + key + "' is not a module name");
    rel /= PathFromUtf8(p);
  }
  std::vector<ModuleFile> out;
  if (wildcard) {
    const std::string prefix = key.substr(0, key.size() - 2);
    ListModules(PathFromUtf8(root) / rel, prefix, &out);
    std::sort(out.begin(), out.end(),
              [](const ModuleFile& a, const ModuleFile& b) { return a.key < b.key; });
    if (out.empty()) return ErrorStatus("INCLUDE: no modules match '" + key + "'");
    return out;
  }
  if (parts.empty()) return ErrorStatus("INCLUDE: '" + key + "' names a package, not a module");
  fs::path file = PathFromUtf8(root) / rel;
  file += ".sql";
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    return ErrorStatus("INCLUDE: unknown module '" + key + "' (no " + PathToUtf8(file) + ")");
  out.push_back({key, PathToUtf8(file)});
  return out;
}

std::vector<std::string> SqlPackages::AllModules() const {
  std::vector<ModuleFile> files;
  std::map<std::string, std::string> all;
  if (!stdlib_.empty()) {
    std::error_code ec;
    for (fs::directory_iterator it(PathFromUtf8(stdlib_), ec), end; !ec && it != end;
         it.increment(ec))
      if (it->is_directory(ec))
        all.emplace(PathToUtf8(it->path().filename()), PathToUtf8(it->path()));
  }
  for (const auto& [name, path] : packages_) all[name] = path;
  for (const auto& [name, path] : all) ListModules(PathFromUtf8(path), name, &files);
  std::vector<std::string> keys;
  for (const ModuleFile& f : files) keys.push_back(f.key);
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace fathom::psql
