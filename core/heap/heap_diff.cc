#include "core/heap/heap_diff.h"

#include <algorithm>
#include <unordered_map>

namespace fathom::heap {

std::vector<HistogramDelta> CompareHistograms(const TraceStorage& s, const HeapAnalysis& baseline,
                                              const HeapAnalysis& later, Grouping grouping) {
  std::vector<HistogramDelta> out;
  std::unordered_map<std::string, size_t> at;
  const HeapAnalysis* dumps[2] = {&baseline, &later};
  for (int side = 0; side < 2; ++side) {
    for (HistogramRow& r : ClassHistogram(s, *dumps[side], grouping)) {
      auto [it, added] = at.try_emplace(r.name, out.size());
      if (added) out.push_back(HistogramDelta{std::move(r.name)});
      HistogramDelta& d = out[it->second];
      d.count[side] = r.count;
      d.shallow_size[side] = r.shallow_size;
      d.retained_size[side] = r.retained_size;
    }
  }
  std::sort(out.begin(), out.end(), [](const HistogramDelta& x, const HistogramDelta& y) {
    if (x.retained_delta() != y.retained_delta()) return x.retained_delta() > y.retained_delta();
    if (x.count_delta() != y.count_delta()) return x.count_delta() > y.count_delta();
    return x.name < y.name;
  });
  return out;
}

}  // namespace fathom::heap
