// DMA-BUF buffers from dma_heap_stat ftrace events, as upstream Perfetto shows
// them: each buffer (keyed by its inode) is a slice named by its size in kB
// ("1 kB", rounded down) on a global "mem.dma_buffer" track, from the event
// that allocates it (len > 0) to the one that frees it (len < 0).
//
// Buffers overlap freely, so they are spread over a set of tracks: a new
// buffer takes the lowest-numbered track with nothing open on it, and a buffer
// allocated again while still open nests on its own track. A track is free
// again once every slice on it has ended.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/storage/trace_storage.h"

namespace fathom {

struct TraceContext;

class DmaBufferTracker {
 public:
  explicit DmaBufferTracker(TraceContext* ctx);

  void OnHeapStat(int64_t ts, uint64_t inode, int64_t len);

 private:
  struct OpenBuffer {
    uint32_t track_index = 0;
    uint32_t depth = 0;  // slices of this inode still open
  };
  uint32_t TrackAt(uint32_t index);

  TraceContext* ctx_;
  StringId track_name_, track_type_;
  std::unordered_map<uint64_t, OpenBuffer> open_;  // by inode
  std::vector<bool> track_busy_;                   // by track index
  std::optional<uint32_t> track_group_id_;         // of all the allocation tracks
};

}  // namespace fathom
