// Puts events from every CPU and every packet sequence into one timestamp
// order before parsing. Each source is its own queue (already in order in a
// well-formed trace), and the queues are merged with a heap: O(n log k)
// instead of sorting everything. Entries are 32-byte references into the
// retained file chunks, never copies of the events.
#pragma once

#include <cstdint>
#include <algorithm>
#include <deque>
#include <queue>
#include <vector>

namespace fathom {

enum class SortKind : uint8_t {
  kFtraceEvent,    // data/size: FtraceEvent; cpu; aux: sequence generation index
  kCompactSwitch,  // aux: index into the compact switch records; cpu
  kCompactWaking,  // aux: index into the compact waking records; cpu
  kTracePacket,    // data/size: TracePacket; aux: sequence generation index
  kJsonEvent,      // data/size: one Chrome JSON event object
};

// CPU numbers index per-CPU queues and parser state; a larger value in a
// trace is corruption, rejected by every importer before it sizes anything.
inline constexpr uint32_t kMaxCpus = 4096;

struct SortEntry {
  int64_t ts;
  const uint8_t* data;
  uint32_t size;
  uint32_t aux;
  uint32_t order;  // global push order: ties keep file order
  uint16_t cpu;
  SortKind kind;
};
static_assert(sizeof(SortEntry) == 32);

class Sorter {
 public:
  // Queue ids: per ftrace CPU one for full events, one for compact switches
  // and one for compact wakings (each is in order on its own, but a bundle
  // holds them one after the other), and one per packet sequence.
  enum FtraceFamily : uint32_t { kFullEvents = 0, kCompactSwitches = 1, kCompactWakings = 2 };
  uint32_t FtraceQueue(uint32_t cpu, FtraceFamily family = kFullEvents);
  uint32_t SequenceQueue(uint32_t seq_id);

  void Push(uint32_t queue, SortEntry e) {
    e.order = next_order_++;
    auto& q = queues_[queue];
    if (!q.entries.empty() && e.ts < q.entries.back().ts) q.out_of_order = true;
    q.entries.push_back(e);
    ++size_;
    ++kind_counts_[static_cast<size_t>(e.kind)];
  }
  // Entries pushed per kind (lets the parsers size their tables up front).
  size_t count(SortKind k) const { return kind_counts_[static_cast<size_t>(k)]; }

  size_t size() const { return size_; }
  size_t memory_bytes() const;

  // Emits every entry in (ts, order) order, then clears. Returns the number
  // of queues that needed sorting (a well-formed trace has none).
  template <typename Sink>
  size_t DrainSorted(Sink&& sink);

 private:
  // A deque grows in fixed blocks: no reallocation copies (and no moment with
  // two copies) while pushing, and blocks are freed as the merge consumes them.
  struct Queue {
    std::deque<SortEntry> entries;
    bool out_of_order = false;
  };
  uint32_t NewQueue();

  std::vector<Queue> queues_;
  std::vector<uint32_t> cpu_queues_;  // cpu -> queue + 1
  std::vector<std::pair<uint32_t, uint32_t>> seq_queues_;  // (seq id, queue), small
  uint32_t next_order_ = 0;
  size_t size_ = 0;
  size_t kind_counts_[8] = {};
};

template <typename Sink>
size_t Sorter::DrainSorted(Sink&& sink) {
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
  for (uint32_t i = 0; i < queues_.size(); ++i)
    if (!queues_[i].entries.empty())
      heap.push({queues_[i].entries[0].ts, queues_[i].entries[0].order, i});
  while (!heap.empty()) {
    Head h = heap.top();
    heap.pop();
    auto& entries = queues_[h.queue].entries;
    // Emit the run of this queue that stays before the next queue's head.
    const Head* next = heap.empty() ? nullptr : &heap.top();
    do {
      sink(entries.front());
      entries.pop_front();
    } while (!entries.empty() &&
             (!next || entries.front().ts < next->ts ||
              (entries.front().ts == next->ts && entries.front().order < next->order)));
    if (!entries.empty()) {
      heap.push({entries.front().ts, entries.front().order, h.queue});
    } else {
      std::deque<SortEntry>().swap(entries);
    }
  }
  queues_.clear();
  cpu_queues_.clear();
  seq_queues_.clear();
  size_ = 0;
  for (size_t& c : kind_counts_) c = 0;
  return resorted;
}

}  // namespace fathom
