// Prints query results as an aligned table, as JSON, or as CSV in exactly the
// form upstream's diff tests use (quoted header and strings, "[NULL]", %f
// doubles), so outputs can be compared byte for byte.
#pragma once

#include <cstdio>
#include <string>

#include "core/base/status.h"
#include "core/sql/sql_engine.h"

namespace fathom {

enum class ResultFormat { kTable, kCsv, kJson };

// Prints every result set of `it` to `out`. Returns the iterator's status.
Status PrintResults(QueryIterator* it, ResultFormat format, std::string* out);

}  // namespace fathom
