// `_auto_id`: upstream's tables carry a hidden column holding each row's
// index (0, 1, ...), which the standard library's modules read
// (`c._auto_id AS id`). A PERFETTO TABLE here is a SQLite table filled in its
// query's order, whose rowid counts rows from 1, so `x._auto_id` reads as
// `(x.rowid - 1)`.
#pragma once

#include <string>
#include <string_view>

namespace fathom::psql {

// `sql` with every `_auto_id` column reference rewritten (strings, quoted
// identifiers and comments are left alone).
std::string RewriteAutoId(std::string_view sql);

}  // namespace fathom::psql
