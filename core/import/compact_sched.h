// Decoded compact_sched events, as the tokenizer stores them for the sorter.
// The sorter keeps them in per-CPU queues of their own (no separate 32-byte
// sort entry per event), so each record carries its sort key (ts, order).
#pragma once

#include <cstdint>

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

}  // namespace fathom
