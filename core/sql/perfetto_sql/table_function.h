// A PerfettoSQL table function (RETURNS TABLE(...)) as an eponymous SQLite
// virtual table: columns are the declared return columns, then one hidden
// column per argument, which `FROM f(a, b)` constrains by equality.
#pragma once

#include "base/status.h"

namespace fathom::psql {

class FunctionImpl;

// Registers `f` (which outlives the database connection's use of it) under
// its name, replacing a table function of the same name.
Status RegisterTableFunction(FunctionImpl* f);

}  // namespace fathom::psql
