// A query's rows as one compact string for EXPECT_EQ: cells joined by ',',
// each row ended by ';', NULL as "N", integers in decimal, anything else as
// the iterator's string.
#pragma once

#include <string>

#include "core/trace_processor.h"

namespace fathom::testing {

inline std::string CompactRows(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  if (!it->NextResultSet()) return "error: " + it->status().message();
  std::string out;
  while (it->NextRow()) {
    for (int c = 0; c < it->column_count(); ++c) {
      if (c) out += ",";
      SqlValue v = it->Get(c);
      if (v.type == SqlValue::kNull)
        out += "N";
      else if (v.type == SqlValue::kInt)
        out += std::to_string(v.i);
      else
        out += std::string(v.s);
    }
    out += ";";
  }
  return out;
}

}  // namespace fathom::testing
