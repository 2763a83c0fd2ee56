// __intrinsic_stdlib_objects: a catalogue of every module of the loaded SQL
// packages and of the tables, views, functions, table functions and macros
// they define, read from the module files themselves (their CREATE PERFETTO
// statements and the `--` comments documenting them), as upstream offers it:
// qualified_name, module, package, name, object_type (MODULE, TABLE, VIEW,
// FUNCTION, TABLE_FUNCTION, MACRO), exposed (1 unless the name starts with
// '_'), short_description, summary (a searchable text: kind, description,
// arguments, columns, return type, search aliases), cols and args (JSON
// arrays of {name, type, description}), return_type, return_description.
#pragma once

#include <sqlite3.h>

#include "base/status.h"

namespace fathom::psql {

class SqlPackages;

Status RegisterStdlibObjects(sqlite3* db, const SqlPackages* packages);

}  // namespace fathom::psql
