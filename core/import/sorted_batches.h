// Hands the sorter's merged entries from the thread that merges to the
// thread that parses, in batches. The merge (heap, run decoding, prefetching
// cold queue elements) then runs on a second core while the parsers run on
// the first.
#pragma once

#include <cstdint>
#include <new>
#include <thread>

#include "core/base/always_inline.h"
#include "core/base/batch_pipe.h"
#include "core/import/compact_sched.h"
#include "core/import/sorter.h"

namespace fathom {

class SortedBatches {
 public:
  static constexpr size_t kBatchEntries = 4096;

  struct Batch {
    static constexpr size_t kRecordBytes = sizeof(CompactSwitchRecord) > sizeof(CompactWakingRecord)
                                               ? sizeof(CompactSwitchRecord)
                                               : sizeof(CompactWakingRecord);
    SortEntry entries[kBatchEntries];
    // Decoded compact_sched records live in the batch: the merge's copies
    // are gone (stack temporaries, freed queue blocks) by the time the
    // parser reads them.
    alignas(8) uint8_t records[kBatchEntries][kRecordBytes];
    size_t size = 0;
  };

  // Producer: appends one entry (copying a compact record into the batch).
  FATHOM_ALWAYS_INLINE void Add(const SortEntry& e) {
    if (!current_ && !(current_ = pipe_.Acquire())) return;  // consumer gone: drop
    size_t i = current_->size;
    SortEntry& slot = current_->entries[i];
    slot = e;
    if (e.kind == SortKind::kCompactSwitch) {
      slot.data = reinterpret_cast<const uint8_t*>(new (current_->records[i])
                                                       CompactSwitchRecord(CompactSwitchOf(e)));
    } else if (e.kind == SortKind::kCompactWaking) {
      slot.data = reinterpret_cast<const uint8_t*>(new (current_->records[i])
                                                       CompactWakingRecord(CompactWakingOf(e)));
    }
    if (++current_->size == kBatchEntries) {
      pipe_.Publish();
      current_ = nullptr;
    }
  }
  // Producer: no more entries.
  void Finish() {
    if (current_ && current_->size) {
      pipe_.Publish();
      current_ = nullptr;
    }
    pipe_.Finish(current_);
    current_ = nullptr;
  }

  // Consumer: see BatchPipe.
  const Batch* Next() { return pipe_.Next(); }
  void Release() { pipe_.Release(); }

 private:
  BatchPipe<Batch, 8> pipe_;
  Batch* current_ = nullptr;  // the producer's batch being filled
};

// Sorter::DrainSorted with the merge on a worker thread: `sink` runs on the
// calling thread, in the same order, one batch behind the merge.
template <typename Sink>
size_t DrainSortedOnWorker(Sorter& sorter, Sink&& sink) {
  constexpr size_t kPrefetchAhead = 4;
  SortedBatches batches;
  size_t resorted = 0;
  std::thread worker([&] {
    resorted = sorter.DrainSorted([&](const SortEntry& e) { batches.Add(e); });
    batches.Finish();
  });
  while (const SortedBatches::Batch* b = batches.Next()) {
    for (size_t i = 0; i < b->size; ++i) {
      // The event bytes are cold (tokenized long ago; the merge's prefetch
      // warmed the other core): fetch a few events ahead for this one.
      if (i + kPrefetchAhead < b->size) __builtin_prefetch(b->entries[i + kPrefetchAhead].data);
      sink(b->entries[i]);
    }
    batches.Release();
  }
  worker.join();
  return resorted;
}

}  // namespace fathom
