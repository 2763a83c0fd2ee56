// Two heap dumps of one trace compared (issue item 3): per class or
// package, the count, shallow and retained size in each and their change.
// Built on the histograms of both analyses (heap_queries.h), so it is as
// cheap as two histograms; groups are matched by name, since class rows
// differ between dumps.
#pragma once

#include <string>
#include <vector>

#include "core/heap/heap_queries.h"

namespace fathom {
class TraceStorage;
namespace heap {

struct HistogramDelta {
  std::string name;
  int64_t count[2] = {0, 0};  // [0] the baseline, [1] the later dump
  int64_t shallow_size[2] = {0, 0};
  int64_t retained_size[2] = {0, 0};
  int64_t count_delta() const { return count[1] - count[0]; }
  int64_t retained_delta() const { return retained_size[1] - retained_size[0]; }
  int64_t shallow_delta() const { return shallow_size[1] - shallow_size[0]; }
};

// Groups present in either dump, largest retained growth first (then by
// largest shrink last).
std::vector<HistogramDelta> CompareHistograms(const TraceStorage& s, const HeapAnalysis& baseline,
                                              const HeapAnalysis& later, Grouping grouping);

}  // namespace heap
}  // namespace fathom
