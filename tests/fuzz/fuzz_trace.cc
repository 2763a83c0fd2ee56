// libFuzzer target: any byte string handed to LoadBuffer must come back as a
// Status (never a crash, hang or sanitizer report), and whatever got loaded
// must be queryable.
#include <cstddef>
#include <cstdint>

#include "core/trace_processor.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fathom::TraceProcessor tp;
  fathom::Status st = tp.LoadBuffer(data, size, "fuzz-input");
  (void)st;
  // Touch every table kind the parsers fill, through the SQL layer.
  auto it = tp.Query(
      "select count(*), max(dur) from sched;"
      "select count(*), max(depth) from slice;"
      "select count(*), sum(value) from counter;"
      "select name, value from stats where value != 0;"
      "select start_ts, end_ts from trace_bounds;");
  while (it->NextResultSet())
    while (it->NextRow()) {
      for (int i = 0; i < it->column_count(); ++i) (void)it->Get(i);
    }
  return 0;
}
