#include "app/cli/sql_package_flags.h"

namespace fathom::cli {

Status TakeSqlPackageFlags(std::vector<std::string>* args, SqlPackageFlags* flags) {
  std::vector<std::string> rest;
  for (size_t i = 0; i < args->size(); ++i) {
    const std::string& a = (*args)[i];
    if (a == "--") {  // a program's own command line follows
      rest.insert(rest.end(), args->begin() + static_cast<std::ptrdiff_t>(i), args->end());
      break;
    }
    const bool add = a == "--add-sql-package", over = a == "--override-sql-package";
    if (!add && !over && a != "--override-stdlib") {
      rest.push_back(a);
      continue;
    }
    if (i + 1 >= args->size() || (*args)[i + 1].empty()) return ErrorStatus(a + " takes a folder");
    const std::string& value = (*args)[++i];
    if (add || over) {
      SqlPackageFlags::Package p;
      psql::SplitPackageFlag(value, &p.path, &p.name);
      p.override = over;
      flags->packages.push_back(std::move(p));
    } else {
      flags->stdlib = value;
    }
  }
  *args = std::move(rest);
  return Status::Ok();
}

SqlPackageFlags& CommandLineSqlPackages() {
  static SqlPackageFlags flags;
  return flags;
}

Status ApplySqlPackageFlags(const SqlPackageFlags& flags, psql::SqlPackages* packages) {
  if (!flags.stdlib.empty()) {
    Status st = packages->SetStdlib(flags.stdlib);
    if (!st.ok()) return ErrorStatus("--override-stdlib: " + st.message());
  }
  for (const SqlPackageFlags::Package& p : flags.packages) {
    Status st = packages->Add(p.path, p.name, p.override);
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

const char* SqlPackageFlagsUsage() {
  return "PerfettoSQL packages (INCLUDE PERFETTO MODULE; as upstream trace_processor_shell):\n"
         "  --add-sql-package PATH[@PKG]       modules PKG.a.b from PATH/a/b.sql (PKG: the\n"
         "                                     folder's name)\n"
         "  --override-sql-package PATH[@PKG]  the same, replacing a package of that name\n"
         "  --override-stdlib PATH             Perfetto's standard library (the folder holding\n"
         "                                     android/, sched/, ...); default $FATHOM_STDLIB\n";
}

}  // namespace fathom::cli
