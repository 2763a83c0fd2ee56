// compact_sched events (FtraceEventBundle.compact_sched): the decoded form
// the parser consumes, and the per-bundle column decoder shared by the
// tokenizer (validation, timestamps) and the sorter (which re-decodes a
// bundle only when the merge reaches it, so the events are never staged).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/base/string_pool.h"

namespace fathom {

struct CompactSwitchRecord {
  int64_t prev_state;
  int32_t next_pid;
  int32_t next_prio;
  StringId next_comm;
  uint32_t order = 0;  // sorter push order (set by the Sorter)
  int64_t ts = 0;
};
static_assert(sizeof(CompactSwitchRecord) == 32);

struct CompactWakingRecord {
  int32_t pid;
  int32_t target_cpu;
  int32_t prio;
  StringId comm;
  uint32_t common_flags;
  bool has_common_flags;
  uint32_t order = 0;  // sorter push order (set by the Sorter)
  int64_t ts = 0;
};

// One bundle's packed arrays, decoded as they are (timestamps are deltas,
// comms are indices into `intern`). Reused across bundles: no mallocs once
// the vectors have grown.
struct CompactSchedColumns {
  std::vector<uint64_t> sw_ts, wk_ts;
  std::vector<int64_t> sw_state;
  std::vector<int32_t> sw_pid, sw_prio, wk_pid, wk_cpu, wk_prio;
  std::vector<uint32_t> sw_comm, wk_comm, wk_flags;
  std::vector<std::string_view> intern;
  void Clear() {
    sw_ts.clear(), wk_ts.clear(), sw_state.clear(), sw_pid.clear(), sw_prio.clear();
    wk_pid.clear(), wk_cpu.clear(), wk_prio.clear(), sw_comm.clear(), wk_comm.clear();
    wk_flags.clear(), intern.clear();
  }
};

enum CompactSchedParts : uint32_t { kCompactSwitchPart = 1, kCompactWakingPart = 2 };

// Decodes the `parts` (CompactSchedParts bits) of a CompactSched message into
// `out` (cleared first; the intern table only with the whole message).
// False when malformed: bad varints or arrays of different lengths.
// (Defined in proto_tokenizer.cc, next to the other wire-format code.)
bool DecodeCompactSched(const uint8_t* data, size_t size, uint32_t parts, CompactSchedColumns* out);

}  // namespace fathom
