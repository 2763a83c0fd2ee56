// demangle(name) (also __intrinsic_demangle, the name upstream's prelude
// delegates to): an Itanium C++ symbol ("_Z...") as source text, NULL for
// anything else or a symbol that does not demangle, as upstream answers.
// callstacks.stack_profile names frames with it.
#pragma once

#include <sqlite3.h>

#include "base/status.h"

namespace fathom {

Status RegisterDemangleFunction(sqlite3* db);

}  // namespace fathom
