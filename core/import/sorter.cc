#include "core/import/sorter.h"

namespace fathom {

uint32_t Sorter::NewQueue() {
  queues_.emplace_back();
  return static_cast<uint32_t>(queues_.size() - 1);
}

uint32_t Sorter::FtraceQueue(uint32_t cpu, FtraceFamily family) {
  size_t slot = static_cast<size_t>(cpu) * 3 + family;
  if (slot >= cpu_queues_.size()) cpu_queues_.resize(slot + 1, 0);
  if (!cpu_queues_[slot]) {
    cpu_queues_[slot] = NewQueue() + 1;
    queues_.back().cpu = static_cast<uint16_t>(cpu);
  }
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
  for (const auto& q : queues_)
    n += q.entries.size() * sizeof(SortEntry) + q.switches.size() * sizeof(CompactSwitchRecord) +
         q.wakings.size() * sizeof(CompactWakingRecord);
  return n;
}

}  // namespace fathom
