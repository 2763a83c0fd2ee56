// Prints query results as an aligned table, as JSON, or as CSV in exactly the
// form upstream's diff tests use (quoted header and strings, "[NULL]", %f
// doubles), so outputs can be compared byte for byte.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/sql/sql_engine.h"

namespace fathom {

enum class ResultFormat { kTable, kCsv, kJson };

// Prints every result set of `it` to `out`. Returns the iterator's status.
Status PrintResults(QueryIterator* it, ResultFormat format, std::string* out);

// The rows of the first result set of `it` as text (NULL and blobs as "", doubles as %f):
// for small fact-finding queries whose callers do not want SqlValue.
Result<std::vector<std::vector<std::string>>> RowsAsText(QueryIterator* it);

}  // namespace fathom
