// CMA (contiguous memory allocator) allocations from ftrace, as upstream
// Perfetto shows them: a "mm_cma_alloc" slice on the allocating thread's
// track, from cma_alloc_start to the event that reports the result.
//
// Kernels report the result one of two ways:
//  - cma_alloc_info (older kernels) carries the outcome and the migration
//    counters itself;
//  - cma_alloc_finish (newer kernels) carries the outcome, and the counters
//    come from the mm_alloc_contig_migrate_range_info events the same thread
//    emitted while the allocation was in progress.
// Which one ends the slice follows the kernel version, as upstream does:
// cma_alloc_info from 5.10, cma_alloc_finish from 6.1; before 5.10 (or with
// no known kernel version) no slice is made. The ending event puts the
// outcome in the slice's args ("cma_*").
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>

#include "core/import/proto_decoder.h"
#include "core/storage/trace_storage.h"

namespace fathom {

struct TraceContext;

class CmaAllocTracker {
 public:
  explicit CmaAllocTracker(TraceContext* ctx);

  // Whether `event_id` (an FtraceEvent field) is one of the CMA events.
  static bool Handles(uint32_t event_id);
  // `pid` is the event's thread; `kernel` the traced kernel's (major, minor).
  void OnEvent(uint32_t event_id, int64_t ts, uint32_t pid, proto::Bytes payload,
               std::optional<std::pair<int, int>> kernel);

 private:
  struct MigrateCounts {
    uint64_t nr_migrated = 0, nr_reclaimed = 0, nr_mapped = 0;
  };
  void OnAllocStart(int64_t ts, uint32_t pid);
  void OnAllocInfo(int64_t ts, uint32_t pid, proto::Bytes payload);
  void OnMigrateRangeInfo(uint32_t pid, proto::Bytes payload);
  void OnAllocFinish(int64_t ts, uint32_t pid, proto::Bytes payload);
  uint32_t TrackOf(uint32_t pid);

  TraceContext* ctx_;
  StringId slice_name_;
  // Per thread with an allocation open: its latest migrate_range_info (all
  // zero until one arrives).
  std::unordered_map<uint32_t, MigrateCounts> migrate_by_pid_;
};

}  // namespace fathom
