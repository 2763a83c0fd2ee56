// Shared by the format-specific loader targets: loads bytes through the real
// TraceProcessor pipeline (detection, tokenizer, sorter, parser, tables) in
// small chunks, so a tokenizer's state across chunk boundaries is fuzzed too,
// then reads every table kind back through SQL.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/import/trace_format.h"
#include "core/trace_processor.h"

namespace fathom::fuzz {

// Loads `data` and touches the result. Single-threaded (deterministic and
// fast for small inputs); limits lowered so one input cannot take more than a
// few hundred MB.
inline void LoadAndQuery(const uint8_t* data, size_t size) {
  TraceProcessor tp;
  LoadTuning tuning;
  tuning.threads = false;
  // About three chunks per input: boundaries fall inside lines, objects and
  // packets.
  tuning.chunk_bytes = std::max<size_t>(64, size / 3);
  tuning.read_ahead_headroom = 256;
  tp.set_load_tuning(tuning);
  LoadLimits limits;
  limits.inflate_floor_bytes = 16 << 20;
  limits.max_container_bytes = 64 << 20;
  tp.set_load_limits(limits);
  (void)tp.LoadBuffer(data, size, "fuzz-input");
  auto it = tp.Query(
      "select count(*), max(dur) from sched;"
      "select count(*), max(depth), max(dur) from slice;"
      "select count(*), sum(value) from counter;"
      "select count(*) from ftrace_event;"
      "select name, value from stats where value != 0;"
      "select start_ts, end_ts from trace_bounds;");
  while (it->NextResultSet())
    while (it->NextRow()) {
      for (int i = 0; i < it->column_count(); ++i) (void)it->Get(i);
    }
}

// `data` with `prefix` in front when the detector does not already see
// `want` in it, so every mutation reaches the tokenizer under test instead of
// another format's. Empty when even the prefixed bytes are not `want`.
inline std::vector<uint8_t> ForceFormat(const uint8_t* data, size_t size, TraceFormat want,
                                        const std::string& prefix) {
  std::vector<uint8_t> out;
  if (DetectTraceFormat(data, size) == want) {
    out.assign(data, data + size);
    return out;
  }
  out.reserve(prefix.size() + size);
  out.insert(out.end(), prefix.begin(), prefix.end());
  out.insert(out.end(), data, data + size);
  if (DetectTraceFormat(out.data(), out.size()) != want) out.clear();
  return out;
}

}  // namespace fathom::fuzz
