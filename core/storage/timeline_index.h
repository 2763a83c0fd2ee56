// Direct, SQL-free answers to the viewer's hot questions: "which sched slices
// of CPU 3 overlap [t0, t1)", "how busy was each CPU in each pixel column",
// "min/max/last value of a counter track per pixel column". Built once after
// import from the column tables (per-CPU and per-track row lists sorted by
// ts), then every query is a binary search plus a linear walk over just the
// rows in range.
#pragma once

#include <cstdint>
#include <vector>

#include "core/storage/trace_storage.h"

namespace fathom {

struct CounterBucket {
  double min = 0;
  double max = 0;
  double last = 0;  // value in force at the end of the bucket
  bool has_value = false;
};

class TimelineIndex {
 public:
  explicit TimelineIndex(const TraceStorage& storage);

  uint32_t cpu_count() const { return static_cast<uint32_t>(cpu_rows_.size()); }

  // sched_slice row ids on `cpu` overlapping [t0, t1), in ts order. A slice
  // still open at the end of the trace (dur -1) lasts until the trace end.
  std::vector<uint32_t> SchedSlicesInRange(uint32_t cpu, int64_t t0, int64_t t1) const;

  // Fraction (0..1) of each of `buckets` equal parts of [t0, t1) during which
  // `cpu` ran something other than the idle thread (utid 0).
  std::vector<double> CpuUtilization(uint32_t cpu, int64_t t0, int64_t t1, uint32_t buckets) const;

  // Per bucket of [t0, t1): min/max of the values in force during the bucket
  // (a counter holds its value until the next sample), for drawing envelopes.
  std::vector<CounterBucket> CounterBuckets(uint32_t track_id, int64_t t0, int64_t t1,
                                            uint32_t buckets) const;

 private:
  int64_t SchedEnd(uint32_t row) const;

  const TraceStorage& storage_;
  int64_t trace_end_;
  std::vector<std::vector<uint32_t>> cpu_rows_;    // cpu -> sched rows by ts
  std::vector<std::vector<uint32_t>> track_rows_;  // track id -> counter rows by ts
};

}  // namespace fathom
