// Puts events from every CPU and every packet sequence into one timestamp
// order before parsing. Each source is its own queue (already in order in a
// well-formed trace), and the queues are merged with heaps: O(n log k)
// instead of sorting everything. Events with equal timestamps come out in
// upstream's order: see DrainSorted. Entries are 32-byte references into the
// retained file chunks, never copies of the events. compact_sched events are
// the exception: they are decoded by the tokenizer anyway, so their records
// (with ts and push order inside) are the queue elements themselves, which
// halves the staging memory per compact event and saves one indirection.
// Better still, a bundle's compact_sched events that continue their CPU's
// earlier ones in time are queued as one run: a reference to the bundle's
// bytes, decoded again only when the merge reaches it. Nothing per event is
// staged, the decoded columns are hot when parsed, and the run's switches
// and wakings are merged locally instead of through the heap.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/base/always_inline.h"
#include "core/import/compact_sched.h"

namespace fathom {

enum class SortKind : uint8_t {
  kFtraceEvent,      // data/size: FtraceEvent; cpu; aux: sequence generation index
  kCompactSwitch,    // data: the CompactSwitchRecord (CompactSwitchOf); cpu
  kCompactWaking,    // data: the CompactWakingRecord (CompactWakingOf); cpu
  kTracePacket,      // data/size: TracePacket; aux: sequence generation index
  kJsonEvent,        // data/size: one Chrome JSON event object
  kAndroidLogEvent,  // data/size: one AndroidLogPacket.LogEvent, ts already converted
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

// The record behind a kCompactSwitch / kCompactWaking entry; valid only
// while the sink runs.
inline const CompactSwitchRecord& CompactSwitchOf(const SortEntry& e) {
  return *reinterpret_cast<const CompactSwitchRecord*>(e.data);
}
inline const CompactWakingRecord& CompactWakingOf(const SortEntry& e) {
  return *reinterpret_cast<const CompactWakingRecord*>(e.data);
}

// FIFO in 64 KiB blocks: one allocation per ~2000 entries instead of per 16
// (std::deque), no reallocation copies while pushing, and each block is
// freed as soon as the merge has consumed it.
template <typename T>
class ChunkedFifo {
 public:
  static constexpr size_t kBlock = (64 * 1024) / sizeof(T);
  void push_back(const T& v) {
    if (tail_ == kBlock || blocks_.empty()) {
      blocks_.emplace_back(new T[kBlock]);
      tail_ = 0;
    }
    blocks_.back()[tail_++] = v;
    ++size_;
  }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  T& front() { return blocks_[head_block_][head_]; }
  const T& front() const { return blocks_[head_block_][head_]; }
  const T& back() const { return blocks_.back()[tail_ - 1]; }
  void pop_front() {
    --size_;
    if (++head_ == kBlock) {
      blocks_[head_block_++].reset();
      head_ = 0;
    }
    if (size_ == 0) clear();
  }
  void clear() {
    blocks_.clear();
    head_block_ = head_ = tail_ = size_ = 0;
  }
  T& at(size_t i) {
    size_t k = head_ + i;
    return blocks_[head_block_ + k / kBlock][k % kBlock];
  }
  // Inserts `v` after the last element whose ts is <= v.ts, looking back at
  // most `limit` elements; false (nothing inserted) when that is not enough.
  // Small disorder (an event a little behind the previous bundle's last one)
  // is common in real traces and would otherwise force a sort of the queue.
  bool InsertSorted(const T& v, size_t limit) {
    size_t n = size_, j = n;
    while (j > 0 && n - j < limit && at(j - 1).ts > v.ts) --j;
    if (j > 0 && at(j - 1).ts > v.ts) return false;
    push_back(v);
    for (size_t i = n; i > j; --i) at(i) = at(i - 1);
    at(j) = v;
    return true;
  }
  // Stable sort by `less` (rare: only queues that arrived out of order).
  template <typename Less>
  void StableSort(Less less) {
    std::vector<T> all;
    all.reserve(size_);
    while (!empty()) {
      all.push_back(front());
      pop_front();
    }
    std::stable_sort(all.begin(), all.end(), less);
    for (const T& v : all) push_back(v);
  }

 private:
  std::vector<std::unique_ptr<T[]>> blocks_;
  size_t head_block_ = 0, head_ = 0, tail_ = 0, size_ = 0;
};

class Sorter {
 public:
  // Queue ids: per ftrace CPU one for full events, one each for the
  // switches and the wakings of compact bundle runs, and for compact events
  // that arrived out of order one for switches and one for wakings (each is
  // in order on its own, but a bundle holds them one after the other); and
  // one per packet sequence.
  enum FtraceFamily : uint32_t {
    kFullEvents = 0,
    kCompactSwitches = 1,
    kCompactWakings = 2,
    kCompactSwitchRuns = 3,
    kCompactWakingRuns = 4,
    kCompactRuns = 5,  // whole runs, both parts (see TryPushCompactRun)
  };
  static constexpr uint32_t kFtraceFamilies = 6;
  uint32_t FtraceQueue(uint32_t cpu, FtraceFamily family = kFullEvents);
  uint32_t SequenceQueue(uint32_t seq_id);
  // A queue of its own, for events a tokenizer splits out of packets with their own
  // timestamps (Android log lines).
  uint32_t SourceQueue() { return NewQueue(); }

  void Push(uint32_t queue, SortEntry e) {
    e.order = next_order_++;
    auto& q = queues_[queue];
    if (!q.entries.empty() && e.ts < q.entries.back().ts) {
      if (!q.entries.InsertSorted(e, kInsertLimit)) PushLate(q, e);
    } else {
      q.entries.push_back(e);
    }
    ++size_;
    ++kind_counts_[static_cast<size_t>(e.kind)];
  }
  // compact_sched records go to `queue` = FtraceQueue(cpu, kCompactSwitches /
  // kCompactWakings); r.ts must be set.
  void PushCompactSwitch(uint32_t queue, CompactSwitchRecord r) {
    r.order = next_order_++;
    auto& q = queues_[queue];
    if (!q.switches.empty() && r.ts < q.switches.back().ts) {
      if (!q.switches.InsertSorted(r, kInsertLimit)) {
        q.out_of_order = true;
        q.switches.push_back(r);
      }
    } else {
      q.switches.push_back(r);
    }
    ++size_;
    ++kind_counts_[static_cast<size_t>(SortKind::kCompactSwitch)];
  }
  void PushCompactWaking(uint32_t queue, CompactWakingRecord r) {
    r.order = next_order_++;
    auto& q = queues_[queue];
    if (!q.wakings.empty() && r.ts < q.wakings.back().ts) {
      if (!q.wakings.InsertSorted(r, kInsertLimit)) {
        q.out_of_order = true;
        q.wakings.push_back(r);
      }
    } else {
      q.wakings.push_back(r);
    }
    ++size_;
    ++kind_counts_[static_cast<size_t>(SortKind::kCompactWaking)];
  }
  // A bundle's compact_sched events as one run. `data`/`size`: the
  // CompactSched message (must outlive DrainSorted); `interns`: its intern
  // table, copied by TryPushCompactRun. The caller checked that the message
  // decodes and that neither column's ts decreases. Push order: the
  // switches, then the wakings. The run is queued twice, its switches in
  // one queue and its wakings in another (upstream's tie groups).
  struct CompactRun {
    const uint8_t* data;
    uint32_t size;
    uint32_t switches, wakings;  // events in the run
    uint32_t intern_begin;       // into compact_interns_ (set by the Sorter)
    uint32_t intern_count;
    uint32_t order_base;        // push order of the first switch (set by the Sorter)
    int64_t sw_first, sw_last;  // ts of the first and last switch
    int64_t wk_first, wk_last;  // and waking
  };
  // Queues `run` for `cpu` unless its switches or wakings start before those
  // of that CPU's previous runs end; then false, and the caller pushes the
  // events one by one. `interns`: run.intern_count ids. A CPU's runs are
  // merged as whole runs, switches against wakings locally (see EmitPair),
  // as long as each run's switches come after every earlier waking and its
  // wakings after every earlier switch; otherwise the merge splits them
  // into a queue of switch runs and one of waking runs (SplitCompactRuns).
  bool TryPushCompactRun(uint32_t cpu, CompactRun run, const StringId* interns) {
    auto& q = queues_[FtraceQueue(cpu, kCompactRuns)];
    if (run.switches && q.any_switch && run.sw_first < q.sw_last) return false;
    if (run.wakings && q.any_waking && run.wk_first < q.wk_last) return false;
    if ((run.switches && q.any_waking && run.sw_first <= q.wk_last) ||
        (run.wakings && q.any_switch && run.wk_first <= q.sw_last))
      q.split_runs = true;
    if (run.switches) q.any_switch = true, q.sw_last = run.sw_last;
    if (run.wakings) q.any_waking = true, q.wk_last = run.wk_last;
    run.intern_begin = static_cast<uint32_t>(compact_interns_.size());
    compact_interns_.insert(compact_interns_.end(), interns, interns + run.intern_count);
    run.order_base = next_order_;
    next_order_ += run.switches + run.wakings;
    q.runs.push_back(run);
    size_ += run.switches + run.wakings;
    kind_counts_[static_cast<size_t>(SortKind::kCompactSwitch)] += run.switches;
    kind_counts_[static_cast<size_t>(SortKind::kCompactWaking)] += run.wakings;
    return true;
  }
  // How far back Push looks to place a late entry before sorting the queue.
  static constexpr size_t kInsertLimit = 256;
  // Entries pushed per kind (lets the parsers size their tables up front).
  size_t count(SortKind k) const { return kind_counts_[static_cast<size_t>(k)]; }

  size_t size() const { return size_; }
  size_t memory_bytes() const;

  // Emits every entry in ts order, then clears. Ties keep push order inside
  // a tie group (Queue::group); across groups see the merge. Returns the
  // number of queues that needed sorting (a well-formed trace has none).
  template <typename Sink>
  size_t DrainSorted(Sink&& sink);

 private:
  // A queue holds one of the four element types (by how it was created).
  struct Queue {
    ChunkedFifo<SortEntry> entries;
    ChunkedFifo<CompactSwitchRecord> switches;
    ChunkedFifo<CompactWakingRecord> wakings;
    ChunkedFifo<CompactRun> runs;
    // A run queue's front run, always decoded (only the part this queue
    // holds, both in a pair queue): its columns, the next event and its ts
    // (the next switch in a pair queue, and wk_pos / wk_ts its next waking).
    CompactSchedColumns cols;
    uint32_t pos = 0;
    int64_t next_ts = 0;
    uint32_t wk_pos = 0;
    int64_t wk_ts = 0;
    bool waking_runs = false;  // the runs' wakings, not their switches
    // kCompactRuns: merged as a pair (both of the CPU's compact tie groups)
    // or split at the merge; what has been pushed so far decides.
    bool pair = false;
    bool split_runs = false;
    bool any_switch = false, any_waking = false;
    int64_t sw_last = 0, wk_last = 0;
    uint16_t cpu = 0;
    // The tie group (see GroupOf).
    uint16_t group = 0;
    bool out_of_order = false;
    // Entries too far behind `entries` to insert (e.g. Chrome JSON metadata
    // events with ts 0 at the end of the file): up to kMaxLateRuns runs, each
    // in order, merged as queues of their own instead of sorting everything.
    std::vector<ChunkedFifo<SortEntry>> late;
  };
  static constexpr size_t kMaxLateRuns = 8;

  // The merge's heap elements: a queue's next event, and a tie group's.
  struct Head {
    int64_t ts;
    uint32_t order;
    uint32_t queue;
  };
  struct GroupHead {
    int64_t ts;
    uint32_t group;  // the group id: the tie break between groups
    uint32_t slot;   // into the merge's groups
  };
  struct TieGroup {
    std::vector<Head> heap;  // its queues' heads
    uint32_t id = 0;
    // A pair queue stands for this group (its switches) and the next one
    // (its wakings): the heap is then empty.
    uint32_t pair_queue = UINT32_MAX;
  };
  static bool Before(const Head& a, const Head& b) {
    return a.ts != b.ts ? a.ts < b.ts : a.order < b.order;
  }
  static bool Before(const GroupHead& a, const GroupHead& b) {
    return a.ts != b.ts ? a.ts < b.ts : a.group < b.group;
  }
  template <typename T>
  FATHOM_ALWAYS_INLINE static void SiftDown(std::vector<T>& heap, size_t i) {
    T* h = heap.data();
    size_t n = heap.size();
    T v = h[i];
    for (;;) {
      size_t c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && Before(h[c + 1], h[c])) ++c;
      if (!Before(h[c], v)) break;
      h[i] = h[c];
      i = c;
    }
    h[i] = v;
  }
  template <typename T>
  static void MakeHeap(std::vector<T>& heap) {
    for (size_t i = heap.size() / 2; i-- > 0;) SiftDown(heap, i);
  }
  // The next event of `queue`; false when it is empty.
  FATHOM_ALWAYS_INLINE bool HeadOf(uint32_t queue, Head* h) {
    Queue& q = queues_[queue];
    if (!q.entries.empty()) {
      *h = {q.entries.front().ts, q.entries.front().order, queue};
    } else if (!q.switches.empty()) {
      *h = {q.switches.front().ts, q.switches.front().order, queue};
    } else if (!q.wakings.empty()) {
      *h = {q.wakings.front().ts, q.wakings.front().order, queue};
    } else if (!q.runs.empty()) {
      NextOfRun(q, &h->ts, &h->order);
      h->queue = queue;
    } else {
      return false;
    }
    return true;
  }
  // Emits the front events of `queue` while they stay before (next_ts,
  // next_order) (all of them without next_ts); returns whether it has more.
  template <typename Sink>
  bool EmitFront(uint32_t queue, const int64_t* next_ts, uint32_t next_order, Sink& sink);
  uint32_t NewQueue();
  void PushLate(Queue& q, const SortEntry& e);
  // Before the merge: a queue's late runs become queues of their own, or
  // join its entries when the queue is sorted anyway.
  void SplitLateRuns(uint32_t queue);
  // Tie groups, as upstream's trace_processor_shell orders events with
  // equal timestamps (pinned on crafted traces): every packet sequence and
  // other source is group 0; per CPU its compact switches, its compact
  // wakings and its full ftrace events are groups of their own, ranked by
  // CPU and in that order inside a CPU. Not everything is pinned:
  // upstream's rank also depends on the order of the CPUs' bundles in the
  // file (e.g. with a higher CPU's bundle first it ranks every CPU's
  // switches, then wakings, then full events); this follows the usual
  // layout, CPUs in ascending order.
  static uint16_t GroupOf(uint32_t cpu, FtraceFamily family) {
    uint32_t kind = 2;  // full events
    if (family == kCompactSwitches || family == kCompactSwitchRuns || family == kCompactRuns)
      kind = 0;
    if (family == kCompactWakings || family == kCompactWakingRuns) kind = 1;
    return static_cast<uint16_t>(1 + 3 * cpu + kind);
  }
  // Decodes the front run of a run queue: the part it holds, both parts in a
  // pair queue (which drops runs that turn out empty, so that its front run
  // always has an event).
  static void DecodeFrontRun(Queue& q);
  // Before the merge: each CPU's whole runs become a pair queue, or switch
  // runs and waking runs in queues of their own when the pair's rule cannot
  // hold (runs overlapping across parts, or compact events pushed one by one).
  void SplitCompactRuns();
  // A pair queue's next event as a group head: (ts, the id of its switch
  // group, or of its waking group when the next waking comes first).
  static GroupHead PairHead(const Queue& q, uint32_t switch_group) {
    const CompactRun& r = q.runs.front();
    bool sw = q.pos < r.switches, wk = q.wk_pos < r.wakings;
    if (sw && (!wk || q.next_ts <= q.wk_ts)) return {q.next_ts, switch_group, 0};
    return {q.wk_ts, switch_group + 1, 0};
  }
  // Hand decoded compact event `i` of run `r` (switch or waking) to the sink.
  template <typename Sink>
  FATHOM_ALWAYS_INLINE static void EmitSwitch(const CompactSchedColumns& c, size_t i,
                                              const CompactRun& r, const StringId* interns,
                                              int64_t ts, uint32_t order, uint16_t cpu,
                                              Sink& sink) {
    StringId comm = c.sw_comm[i] < r.intern_count ? interns[c.sw_comm[i]] : kNullStringId;
    CompactSwitchRecord sw{c.sw_state[i], c.sw_pid[i], c.sw_prio[i], comm, order, ts};
    sink(SortEntry{ts, reinterpret_cast<const uint8_t*>(&sw), 0, 0, order, cpu,
                   SortKind::kCompactSwitch});
  }
  template <typename Sink>
  FATHOM_ALWAYS_INLINE static void EmitWaking(const CompactSchedColumns& c, size_t i,
                                              const CompactRun& r, const StringId* interns,
                                              int64_t ts, uint32_t order, uint16_t cpu,
                                              Sink& sink) {
    StringId comm = c.wk_comm[i] < r.intern_count ? interns[c.wk_comm[i]] : kNullStringId;
    bool has_flags = !c.wk_flags.empty();
    CompactWakingRecord w{
        c.wk_pid[i], c.wk_cpu[i], c.wk_prio[i], comm, has_flags ? c.wk_flags[i] : 0, has_flags,
        order,       ts};
    sink(SortEntry{ts, reinterpret_cast<const uint8_t*>(&w), 0, 0, order, cpu,
                   SortKind::kCompactWaking});
  }
  // One turn of group `g` in the merge: its events up to `other` (the other
  // groups' earliest head; null: none). False when the group is done; else
  // its next head's ts and group id are in `head`.
  template <typename Sink>
  FATHOM_ALWAYS_INLINE bool EmitTurn(TieGroup& g, const GroupHead* other, Sink& sink,
                                     GroupHead* head);
  // Emits a pair queue's events while they come before `other` (the other
  // groups' earliest head; null: none), by the rule between tie groups
  // applied to its two parts; returns whether it has more.
  template <typename Sink>
  bool EmitPair(Queue& q, uint32_t switch_group, const GroupHead* other, Sink& sink);
  // The next event of a run queue's front run: its (ts, order).
  static void NextOfRun(const Queue& q, int64_t* ts, uint32_t* order) {
    const CompactRun& r = q.runs.front();
    *ts = q.next_ts;
    *order = r.order_base + (q.waking_runs ? r.switches : 0) + q.pos;
  }
  // Emits the front runs of a run queue while they stay before (next_ts,
  // next_order); returns whether the queue still has runs.
  template <typename Sink>
  bool EmitCompactRuns(Queue& q, const int64_t* next_ts, uint32_t next_order, Sink& sink);

  // Emits the front run of `fifo` while it stays before (next_ts, next_order);
  // returns whether the queue still has entries.
  template <typename T, typename MakeEntry, typename Sink>
  static bool EmitRun(ChunkedFifo<T>& fifo, const int64_t* next_ts, uint32_t next_order,
                      MakeEntry make, Sink& sink) {
    do {
      T& v = fifo.front();
      // The event bytes were tokenized long ago and are out of cache: ask
      // for this queue's next one now, it is needed a few events later.
      if (fifo.size() > 1) Prefetch(fifo.at(1));
      // The queue elements themselves are cold too (staged while the whole
      // file was tokenized): fetch the line two ahead before it is needed.
      if (fifo.size() > 4) __builtin_prefetch(&fifo.at(4));
      sink(make(v));
      fifo.pop_front();
      if (fifo.empty()) return false;
    } while (!next_ts || fifo.front().ts < *next_ts ||
             (fifo.front().ts == *next_ts && OrderOf(fifo.front()) < next_order));
    return true;
  }
  static void Prefetch(const SortEntry& e) { __builtin_prefetch(e.data); }
  template <typename T>
  static void Prefetch(const T&) {}
  static uint32_t OrderOf(const SortEntry& e) { return e.order; }
  static uint32_t OrderOf(const CompactSwitchRecord& r) { return r.order; }
  static uint32_t OrderOf(const CompactWakingRecord& r) { return r.order; }

  std::vector<Queue> queues_;
  std::vector<StringId> compact_interns_;                  // intern tables of queued runs
  std::vector<uint32_t> cpu_queues_;                       // cpu -> queue + 1
  std::vector<std::pair<uint32_t, uint32_t>> seq_queues_;  // (seq id, queue), small
  uint32_t next_order_ = 0;
  size_t size_ = 0;
  size_t kind_counts_[8] = {};
};

template <typename Sink>
size_t Sorter::DrainSorted(Sink&& sink) {
  auto less = [](const auto& a, const auto& b) {
    return a.ts != b.ts ? a.ts < b.ts : a.order < b.order;
  };
  size_t resorted = 0;
  for (uint32_t i = 0, n = static_cast<uint32_t>(queues_.size()); i < n; ++i) SplitLateRuns(i);
  for (auto& q : queues_) {
    if (q.out_of_order) {
      q.entries.StableSort(less);
      q.switches.StableSort(less);
      q.wakings.StableSort(less);
      ++resorted;
    }
  }
  // Two-level merge. Inside a tie group the queues merge by (ts, order)
  // over a binary min-heap of their heads. Across groups, upstream's rule:
  // the group with the earliest head (the lowest group id on a tie) emits
  // every event up to and including the earliest head of the other groups,
  // so at equal ts the group that emitted last goes on first.
  std::vector<TieGroup> groups;
  std::vector<uint32_t> slot_of;  // group id -> slot + 1
  SplitCompactRuns();
  for (auto& q : queues_)
    if (!q.runs.empty()) DecodeFrontRun(q);
  for (uint32_t i = 0; i < queues_.size(); ++i) {
    Head h;
    bool pair = queues_[i].pair && !queues_[i].runs.empty();
    if (!pair && !HeadOf(i, &h)) continue;
    uint16_t g = queues_[i].group;
    if (g >= slot_of.size()) slot_of.resize(g + 1, 0);
    if (!slot_of[g]) {
      groups.emplace_back().id = g;
      slot_of[g] = static_cast<uint32_t>(groups.size());
    }
    if (pair) {
      groups[slot_of[g] - 1].pair_queue = i;
    } else {
      groups[slot_of[g] - 1].heap.push_back(h);
    }
  }
  std::vector<GroupHead> top;
  for (uint32_t s = 0; s < groups.size(); ++s) {
    TieGroup& g = groups[s];
    if (g.pair_queue != UINT32_MAX) {
      top.push_back(PairHead(queues_[g.pair_queue], g.id));
    } else {
      MakeHeap(g.heap);
      top.push_back({g.heap[0].ts, g.id, 0});
    }
    top.back().slot = s;
  }
  MakeHeap(top);
  while (!top.empty()) {
    TieGroup& g = groups[top[0].slot];
    // The earliest head of the other groups: this group emits up to it.
    const GroupHead* other = nullptr;
    if (top.size() > 1) other = &top[1];
    if (top.size() > 2 && Before(top[2], top[1])) other = &top[2];
    if (!EmitTurn(g, other, sink, &top[0])) {
      top[0] = top.back();
      top.pop_back();
      if (top.empty()) break;
    }
    SiftDown(top, 0);
  }
  queues_.clear();
  compact_interns_.clear();
  cpu_queues_.clear();
  seq_queues_.clear();
  size_ = 0;
  for (size_t& c : kind_counts_) c = 0;
  return resorted;
}

template <typename Sink>
FATHOM_ALWAYS_INLINE bool Sorter::EmitTurn(TieGroup& g, const GroupHead* other, Sink& sink,
                                           GroupHead* head) {
  if (g.pair_queue != UINT32_MAX) {
    Queue& q = queues_[g.pair_queue];
    if (!EmitPair(q, g.id, other, sink)) return false;
    const GroupHead next = PairHead(q, g.id);
    head->ts = next.ts, head->group = next.group;
    return true;
  }
  std::vector<Head>& heap = g.heap;
  if (heap.size() == 1) {  // most groups: one queue, no heap step inside
    if (!EmitFront(heap[0].queue, other ? &other->ts : nullptr, UINT32_MAX, sink)) return false;
    HeadOf(heap[0].queue, &heap[0]);
    head->ts = heap[0].ts;
    return true;
  }
  for (;;) {
    const Head* next = nullptr;
    if (heap.size() > 1) next = &heap[1];
    if (heap.size() > 2 && Before(heap[2], heap[1])) next = &heap[2];
    // Stop before the group's next queue head, or after the other groups'
    // earliest ts, whichever comes first.
    int64_t limit_ts = 0;
    uint32_t limit_order = 0;
    const int64_t* limit = nullptr;
    if (next && (!other || next->ts <= other->ts)) {
      limit_ts = next->ts, limit_order = next->order, limit = &limit_ts;
    } else if (other) {
      limit_ts = other->ts, limit_order = UINT32_MAX, limit = &limit_ts;
    }
    if (EmitFront(heap[0].queue, limit, limit_order, sink)) {
      HeadOf(heap[0].queue, &heap[0]);
    } else {
      heap[0] = heap.back();
      heap.pop_back();
      if (heap.empty()) return false;
    }
    SiftDown(heap, 0);
    if (other && heap[0].ts > other->ts) break;
  }
  head->ts = heap[0].ts;
  return true;
}

template <typename Sink>
bool Sorter::EmitPair(Queue& q, uint32_t switch_group, const GroupHead* other, Sink& sink) {
  const CompactSchedColumns& c = q.cols;
  // The part that goes first: the pair's head.
  bool waking = PairHead(q, switch_group).group != switch_group;
  for (;;) {
    const CompactRun& r = q.runs.front();
    const StringId* interns = compact_interns_.data() + r.intern_begin;
    for (;;) {
      bool sw = q.pos < r.switches, wk = q.wk_pos < r.wakings;
      if (!sw && !wk) break;  // the run is done
      // The current part goes on while its next event is at or before the
      // other part's and every other group's; then the other part, if it
      // comes before every other group (by ts, then group id).
      bool has = waking ? wk : sw;
      int64_t ts = waking ? q.wk_ts : q.next_ts;
      bool partner = waking ? sw : wk;
      int64_t partner_ts = waking ? q.next_ts : q.wk_ts;
      if (!has || (partner && ts > partner_ts) || (other && ts > other->ts)) {
        uint32_t partner_group = switch_group + (waking ? 0 : 1);
        if (!partner || (other && (partner_ts > other->ts ||
                                   (partner_ts == other->ts && partner_group > other->group))))
          return true;
        waking = !waking;
        continue;
      }
      if (waking) {
        EmitWaking(c, q.wk_pos, r, interns, ts, r.order_base + r.switches + q.wk_pos, q.cpu, sink);
        if (++q.wk_pos < r.wakings) q.wk_ts += static_cast<int64_t>(c.wk_ts[q.wk_pos]);
      } else {
        EmitSwitch(c, q.pos, r, interns, ts, r.order_base + q.pos, q.cpu, sink);
        if (++q.pos < r.switches) q.next_ts += static_cast<int64_t>(c.sw_ts[q.pos]);
      }
    }
    // Every event of the next run comes after the events of this one in
    // the other part (TryPushCompactRun), so the current part may go on.
    q.runs.pop_front();
    if (q.runs.empty()) return false;
    DecodeFrontRun(q);
    if (q.runs.empty()) return false;
  }
}

template <typename Sink>
bool Sorter::EmitFront(uint32_t queue, const int64_t* next_ts, uint32_t next_order, Sink& sink) {
  Queue& q = queues_[queue];
  if (!q.entries.empty()) {
    return EmitRun(
        q.entries, next_ts, next_order, [](const SortEntry& e) -> const SortEntry& { return e; },
        sink);
  }
  if (!q.switches.empty()) {
    uint16_t cpu = q.cpu;
    return EmitRun(
        q.switches, next_ts, next_order,
        [cpu](const CompactSwitchRecord& r) {
          return SortEntry{r.ts,
                           reinterpret_cast<const uint8_t*>(&r),
                           0,
                           0,
                           r.order,
                           cpu,
                           SortKind::kCompactSwitch};
        },
        sink);
  }
  if (!q.runs.empty()) return EmitCompactRuns(q, next_ts, next_order, sink);
  uint16_t cpu = q.cpu;
  return EmitRun(
      q.wakings, next_ts, next_order,
      [cpu](const CompactWakingRecord& r) {
        return SortEntry{r.ts,
                         reinterpret_cast<const uint8_t*>(&r),
                         0,
                         0,
                         r.order,
                         cpu,
                         SortKind::kCompactWaking};
      },
      sink);
}

template <typename Sink>
bool Sorter::EmitCompactRuns(Queue& q, const int64_t* next_ts, uint32_t next_order, Sink& sink) {
  const CompactSchedColumns& c = q.cols;
  for (;;) {
    const CompactRun& r = q.runs.front();
    const StringId* interns = compact_interns_.data() + r.intern_begin;
    uint32_t n = q.waking_runs ? r.wakings : r.switches;
    uint32_t order_base = r.order_base + (q.waking_runs ? r.switches : 0);
    while (q.pos < n) {
      int64_t ts = q.next_ts;
      uint32_t order = order_base + q.pos;
      if (next_ts && (ts > *next_ts || (ts == *next_ts && order > next_order))) return true;
      if (q.waking_runs) {
        EmitWaking(c, q.pos, r, interns, ts, order, q.cpu, sink);
        if (++q.pos < n) q.next_ts += static_cast<int64_t>(c.wk_ts[q.pos]);
      } else {
        EmitSwitch(c, q.pos, r, interns, ts, order, q.cpu, sink);
        if (++q.pos < n) q.next_ts += static_cast<int64_t>(c.sw_ts[q.pos]);
      }
    }
    q.runs.pop_front();
    if (q.runs.empty()) return false;
    DecodeFrontRun(q);
    int64_t ts;
    uint32_t order;
    NextOfRun(q, &ts, &order);
    if (next_ts && (ts > *next_ts || (ts == *next_ts && order > next_order))) return true;
  }
}

}  // namespace fathom
