#include "core/import/sorter.h"

#include <algorithm>
#include <queue>

namespace fathom {

uint32_t Sorter::NewQueue() {
  queues_.emplace_back();
  return static_cast<uint32_t>(queues_.size() - 1);
}

uint32_t Sorter::FtraceQueue(uint32_t cpu, FtraceFamily family) {
  size_t slot = static_cast<size_t>(cpu) * 3 + family;
  if (slot >= cpu_queues_.size()) cpu_queues_.resize(slot + 1, 0);
  if (!cpu_queues_[slot]) cpu_queues_[slot] = NewQueue() + 1;
  return cpu_queues_[slot] - 1;
}

uint32_t Sorter::SequenceQueue(uint32_t seq_id) {
  for (const auto& [seq, q] : seq_queues_)
    if (seq == seq_id) return q;
  uint32_t q = NewQueue();
  seq_queues_.emplace_back(seq_id, q);
  return q;
}

size_t Sorter::memory_bytes() const {
  size_t n = 0;
  for (const auto& q : queues_) n += q.entries.capacity() * sizeof(SortEntry);
  return n;
}

size_t Sorter::DrainSorted(const std::function<void(const SortEntry&)>& sink) {
  auto less = [](const SortEntry& a, const SortEntry& b) {
    return a.ts != b.ts ? a.ts < b.ts : a.order < b.order;
  };
  size_t resorted = 0;
  for (auto& q : queues_) {
    if (q.out_of_order) {
      std::stable_sort(q.entries.begin(), q.entries.end(), less);
      ++resorted;
    }
  }
  // k-way merge.
  struct Head {
    int64_t ts;
    uint32_t order;
    uint32_t queue;
  };
  auto greater = [](const Head& a, const Head& b) {
    return a.ts != b.ts ? a.ts > b.ts : a.order > b.order;
  };
  std::priority_queue<Head, std::vector<Head>, decltype(greater)> heap(greater);
  std::vector<size_t> pos(queues_.size(), 0);
  for (uint32_t i = 0; i < queues_.size(); ++i)
    if (!queues_[i].entries.empty())
      heap.push({queues_[i].entries[0].ts, queues_[i].entries[0].order, i});
  while (!heap.empty()) {
    Head h = heap.top();
    heap.pop();
    auto& entries = queues_[h.queue].entries;
    size_t& p = pos[h.queue];
    // Emit the run of this queue that stays before the next queue's head.
    const Head* next = heap.empty() ? nullptr : &heap.top();
    do {
      sink(entries[p]);
      ++p;
    } while (p < entries.size() &&
             (!next || entries[p].ts < next->ts ||
              (entries[p].ts == next->ts && entries[p].order < next->order)));
    if (p < entries.size()) {
      heap.push({entries[p].ts, entries[p].order, h.queue});
    } else {
      std::vector<SortEntry>().swap(entries);  // release as we go
    }
  }
  queues_.clear();
  cpu_queues_.clear();
  seq_queues_.clear();
  size_ = 0;
  return resorted;
}

}  // namespace fathom
