// Where INCLUDE PERFETTO MODULE finds modules. A package is a folder with a
// name; module `a.b.c` is the file `b/c.sql` under package `a`'s folder, and
// `a.b.*` is every module under `b/`. The standard library (a folder holding
// android/, sched/, ...) makes each of its subfolders a package; packages
// added by name come first. Folders are read when a module is looked up, so
// files written after a package was added are found.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/status.h"

namespace fathom::psql {

struct ModuleFile {
  std::string key;   // "a.b.c"
  std::string path;  // the .sql file
};

class SqlPackages {
 public:
  // Adds the folder `path` as package `name` (the folder's own name when
  // empty). A name already taken, by an added package or a standard library
  // folder, is an error unless `override`.
  Status Add(const std::string& path, std::string name, bool override);
  // Makes the folder `path` the standard library ("" for none).
  Status SetStdlib(const std::string& path);
  const std::string& stdlib() const { return stdlib_; }

  // The module files `key` names: one for "a.b.c", those under a folder for
  // "a.b.*" (sorted by key). An error says why there are none.
  Result<std::vector<ModuleFile>> Resolve(const std::string& key) const;

  // Every module key of every package, sorted (for completion and listings).
  std::vector<std::string> AllModules() const;

 private:
  // The folder of package `name`, or "" when there is none.
  std::string PackageRoot(const std::string& name) const;

  std::map<std::string, std::string> packages_;  // name -> folder
  std::string stdlib_;
};

// Splits "PATH@PKG" (a package flag's value) into its path and name.
void SplitPackageFlag(const std::string& value, std::string* path, std::string* name);

// What a missing-module error adds: how to point Fathom at Perfetto's library.
const char* StdlibHint();

}  // namespace fathom::psql
