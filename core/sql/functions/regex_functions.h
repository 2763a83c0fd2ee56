// Regular-expression SQL functions, with upstream Perfetto's semantics:
//   regexp(pattern, text[, flags])          1 when `pattern` matches anywhere
//                                           in `text` (also `text REGEXP pattern`);
//                                           flags: 'i' insensitive, 'c'
//                                           sensitive, the last one wins
//   regexp_extract(text, pattern)           the first match, or its single
//                                           capture group when that matched
//                                           something; NULL without a match
//   regexp_replace_simple(text, pattern, r) every match replaced by `r`, in
//                                           which \0..\9 name groups and \\ is
//                                           a backslash
// Any NULL argument gives NULL. Matching works on code points, not bytes.
#pragma once

#include <sqlite3.h>

#include "base/status.h"

namespace fathom {

Status RegisterRegexFunctions(sqlite3* db);

}  // namespace fathom
