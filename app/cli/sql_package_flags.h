// PerfettoSQL package flags, with upstream trace_processor_shell's names and
// meaning, taken by every command that loads a trace (and so may run SQL):
//   --add-sql-package PATH[@PKG]       modules PKG.x.y from PATH/x/y.sql
//   --override-sql-package PATH[@PKG]  the same, replacing a package of that name
//   --override-stdlib PATH             Perfetto's standard library folder
//                                      (holding android/, sched/, ...)
// FATHOM_STDLIB names the library when --override-stdlib is not given.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "core/sql/perfetto_sql/packages.h"

namespace fathom::cli {

struct SqlPackageFlags {
  struct Package {
    std::string path;
    std::string name;  // "" for the folder's name
    bool override = false;
  };
  std::vector<Package> packages;  // in command-line order
  std::string stdlib;             // --override-stdlib; "" keeps FATHOM_STDLIB
};

// Removes the flags from `args` into `flags`; an error names a flag without a value.
Status TakeSqlPackageFlags(std::vector<std::string>* args, SqlPackageFlags* flags);

// The flags main() took (none otherwise).
SqlPackageFlags& CommandLineSqlPackages();

// Applies `flags` to `packages`; an error names a folder that is missing or a
// package name already taken.
Status ApplySqlPackageFlags(const SqlPackageFlags& flags, psql::SqlPackages* packages);

const char* SqlPackageFlagsUsage();

}  // namespace fathom::cli
