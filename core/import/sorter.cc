#include "core/import/sorter.h"

namespace fathom {

uint32_t Sorter::NewQueue() {
  queues_.emplace_back();
  return static_cast<uint32_t>(queues_.size() - 1);
}

void Sorter::PushLate(Queue& q, const SortEntry& e) {
  // First fit keeps every run in order. Past kMaxLateRuns the queue is not
  // "mostly sorted": it is sorted whole before the merge.
  for (auto& run : q.late) {
    if (run.back().ts <= e.ts) {
      run.push_back(e);
      return;
    }
  }
  if (q.late.size() < kMaxLateRuns) {
    q.late.emplace_back().push_back(e);
    return;
  }
  if (q.late.back().InsertSorted(e, kInsertLimit)) return;
  q.out_of_order = true;
  q.entries.push_back(e);
}

void Sorter::SplitLateRuns(uint32_t queue) {
  if (queues_[queue].late.empty()) return;
  std::vector<ChunkedFifo<SortEntry>> late = std::move(queues_[queue].late);
  queues_[queue].late.clear();
  for (auto& run : late) {
    if (queues_[queue].out_of_order) {
      // (ts, order) is unique, so appending and sorting gives the merge's order.
      for (; !run.empty(); run.pop_front()) queues_[queue].entries.push_back(run.front());
      continue;
    }
    uint32_t q = NewQueue();  // may move queues_: index, not reference
    queues_[q].cpu = queues_[queue].cpu;
    queues_[q].group = queues_[queue].group;
    queues_[q].entries = std::move(run);
  }
}

uint32_t Sorter::FtraceQueue(uint32_t cpu, FtraceFamily family) {
  size_t slot = static_cast<size_t>(cpu) * kFtraceFamilies + family;
  if (slot >= cpu_queues_.size()) cpu_queues_.resize(slot + 1, 0);
  if (!cpu_queues_[slot]) {
    cpu_queues_[slot] = NewQueue() + 1;
    queues_.back().cpu = static_cast<uint16_t>(cpu);
    queues_.back().group = GroupOf(cpu, family);
    queues_.back().waking_runs = family == kCompactWakingRuns;
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

void Sorter::DecodeFrontRun(Queue& q) {
  for (;;) {
    CompactRun& r = q.runs.front();
    const bool sw = q.pair || !q.waking_runs, wk = q.pair || q.waking_runs;
    const uint32_t parts =
        (sw ? uint32_t{kCompactSwitchPart} : 0u) | (wk ? uint32_t{kCompactWakingPart} : 0u);
    // The tokenizer decoded the same bytes without error, so this cannot
    // fail or come out shorter; the guard only keeps a broken invariant
    // from reading past the columns.
    if (!DecodeCompactSched(r.data, r.size, parts, &q.cols) ||
        (sw && q.cols.sw_ts.size() < r.switches) || (wk && q.cols.wk_ts.size() < r.wakings)) {
      q.cols.Clear();
      if (sw) r.switches = 0;
      if (wk) r.wakings = 0;
    }
    // pos / next_ts: the switches in a pair queue, else the part it holds.
    const auto& ts = sw ? q.cols.sw_ts : q.cols.wk_ts;
    const uint32_t n = sw ? r.switches : r.wakings;
    q.pos = q.wk_pos = 0;
    q.next_ts = n ? static_cast<int64_t>(ts[0]) : 0;
    q.wk_ts = q.pair && r.wakings ? static_cast<int64_t>(q.cols.wk_ts[0]) : 0;
    if (!q.pair || r.switches || r.wakings) return;
    q.runs.pop_front();
    if (q.runs.empty()) return;
  }
}

void Sorter::SplitCompactRuns() {
  for (uint32_t cpu = 0; size_t{cpu} * kFtraceFamilies < cpu_queues_.size(); ++cpu) {
    auto queue_of = [&](FtraceFamily f) -> uint32_t {  // queue + 1, 0: none
      size_t slot = size_t{cpu} * kFtraceFamilies + f;
      return slot < cpu_queues_.size() ? cpu_queues_[slot] : 0;
    };
    uint32_t runs_queue = queue_of(kCompactRuns);
    if (!runs_queue || queues_[runs_queue - 1].runs.empty()) continue;
    bool singles = false;  // compact events pushed one by one
    for (FtraceFamily f : {kCompactSwitches, kCompactWakings}) {
      if (uint32_t q = queue_of(f))
        singles = singles || !queues_[q - 1].switches.empty() || !queues_[q - 1].wakings.empty();
    }
    if (!singles && !queues_[runs_queue - 1].split_runs) {
      queues_[runs_queue - 1].pair = true;
      continue;
    }
    uint32_t sw = FtraceQueue(cpu, kCompactSwitchRuns);  // may move queues_: indices only
    uint32_t wk = FtraceQueue(cpu, kCompactWakingRuns);
    ChunkedFifo<CompactRun> runs = std::move(queues_[runs_queue - 1].runs);
    queues_[runs_queue - 1].runs.clear();
    for (; !runs.empty(); runs.pop_front()) {
      if (runs.front().switches) queues_[sw].runs.push_back(runs.front());
      if (runs.front().wakings) queues_[wk].runs.push_back(runs.front());
    }
  }
}

size_t Sorter::memory_bytes() const {
  size_t n = 0;
  for (const auto& q : queues_)
    n += q.entries.size() * sizeof(SortEntry) + q.switches.size() * sizeof(CompactSwitchRecord) +
         q.wakings.size() * sizeof(CompactWakingRecord) + q.runs.size() * sizeof(CompactRun);
  for (const auto& q : queues_)
    for (const auto& run : q.late) n += run.size() * sizeof(SortEntry);
  return n + compact_interns_.size() * sizeof(StringId);
}

}  // namespace fathom
