// Adreno GPU command batches (kgsl_adreno_cmdbatch_* ftrace events) as
// upstream shows them: one "GPU" slice per retired batch, on the compressed
// tracks "GPU <process> (Ctx=<context>, Prio=<prio>)" (type
// adreno_gpu_cmdbatch; dimensions context_id, prio, track_compressor_idx).
//
// - queued: the first batch queued on a context names the context's process
//   (the queuing thread's process);
// - sync: pairs the GPU tick counter (19.2 MHz) with the CPU clock for one
//   batch (context, timestamp);
// - retired: the batch's start and retire ticks become the slice, converted
//   with its own sync (used up; no sync, no slice); a retire before the start
//   makes none.
//
// The slices' times lie before the retired event, so upstream hands them back
// to its sorter: they are made after every sorted event, in order of start.
// Flush() does the same at the end of the import.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"
#include "core/import/track_compressor.h"

namespace fathom {

class AdrenoCmdbatchTracker {
 public:
  explicit AdrenoCmdbatchTracker(TraceContext* ctx);

  static bool Handles(uint32_t event_id);
  void Parse(int64_t ts, uint32_t pid, uint32_t event_id, proto::Bytes payload);
  // Writes the slices of every retired batch, in order of their start.
  void Flush();

 private:
  struct Batch {
    int64_t ts;
    int64_t dur;
    uint32_t context;
    int32_t prio;
    std::string process;  // empty when no queued event named one
  };
  void ParseRetired(proto::Bytes payload);

  TraceContext* ctx_;
  TraceStorage* storage_;
  std::map<uint32_t, uint32_t> context_utid_;  // context -> first queuing thread
  // (context, timestamp) -> CPU time minus the tick counter in ns.
  std::map<std::pair<uint32_t, uint32_t>, int64_t> sync_offsets_;
  std::vector<Batch> batches_;
  std::map<std::pair<uint32_t, int32_t>, TrackCompressor> tracks_;  // (context, prio)
};

}  // namespace fathom
