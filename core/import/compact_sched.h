// Decoded compact_sched events, as the tokenizer stores them for the sorter.
#pragma once

#include <cstdint>

#include "core/base/string_pool.h"

namespace fathom {

struct CompactSwitchRecord {
  int64_t prev_state;
  int32_t next_pid;
  int32_t next_prio;
  StringId next_comm;
};

struct CompactWakingRecord {
  int32_t pid;
  int32_t target_cpu;
  int32_t prio;
  StringId comm;
  uint32_t common_flags;
  bool has_common_flags;
};

}  // namespace fathom
