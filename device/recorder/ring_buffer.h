// Decodes one raw ftrace ring-buffer page (as read from per_cpu/cpuN/trace_pipe_raw) into
// data records, following the layouts parsed from header_page/header_event.
//
// Page: [timestamp u64][commit (4 or 8 bytes)][records...]. The low 27 bits of commit are
// the payload size; bit 31 = events were lost before this page, bit 30 = the lost count is
// stored (as a `commit`-sized integer) right after the payload.
// Record: u32 header {type_len:5, time_delta:27}; type_len 1..data_max = data of
// type_len*4 bytes; 0 = data whose size (including the size word) is the next u32;
// padding (time_delta 0: rest of the page; else next u32 = length incl. itself);
// time_extend (delta += next u32 << 27); time_stamp (absolute: next u32 << 27 | delta).
#pragma once

#include <cstdint>
#include <cstring>

#include "ftrace_format.h"

namespace fathom::recorder {

struct PageInfo {
  uint64_t timestamp = 0;
  uint32_t payload_size = 0;
  bool lost_events = false;
  uint64_t lost_count = 0;  // when the kernel stored it
  bool malformed = false;
  uint64_t last_timestamp = 0;
};

constexpr uint64_t kRbMissedEvents = 1ull << 31;
constexpr uint64_t kRbMissedStored = 1ull << 30;
constexpr uint64_t kRbPayloadMask = (1ull << 27) - 1;

inline uint64_t LoadLE(const uint8_t* p, uint32_t size) {
  uint64_t v = 0;
  memcpy(&v, p, size);  // device and kernel share endianness
  return v;
}

// Calls on_record(timestamp, const uint8_t* data, uint32_t size) for every data record.
// Returns false (info->malformed) when the page does not follow the layout; records before
// the damage were delivered.
template <typename Fn>
bool ParseRingBufferPage(const uint8_t* page, uint32_t page_size, const PageHeaderLayout& ph,
                         const EventHeaderLayout& eh, PageInfo* info, Fn&& on_record) {
  *info = PageInfo();
  if (page_size < ph.data_offset) return !(info->malformed = true);
  info->timestamp = LoadLE(page + ph.timestamp_offset, 8);
  uint64_t commit = LoadLE(page + ph.commit_offset, ph.commit_size);
  info->payload_size = static_cast<uint32_t>(commit & kRbPayloadMask);
  info->lost_events = commit & kRbMissedEvents;
  const uint8_t* p = page + ph.data_offset;
  const uint8_t* end = p + info->payload_size;
  if (end > page + page_size) return !(info->malformed = true);
  if ((commit & kRbMissedStored) && end + ph.commit_size <= page + page_size)
    info->lost_count = LoadLE(end, ph.commit_size);
  uint64_t ts = info->timestamp;
  while (p < end) {
    if (end - p < 4) return !(info->malformed = true);
    uint32_t header = static_cast<uint32_t>(LoadLE(p, 4));
    p += 4;
    uint32_t type_len = header & 0x1f;
    uint32_t delta = header >> 5;
    if (type_len == eh.padding) {
      if (delta == 0) break;  // the rest of the page is padding
      if (end - p < 4) return !(info->malformed = true);
      uint32_t len = static_cast<uint32_t>(LoadLE(p, 4));
      if (len < 4 || len > static_cast<uint64_t>(end - p)) return !(info->malformed = true);
      p += len;  // the kernel's reader does not advance time on padding
    } else if (type_len == eh.time_extend) {
      if (end - p < 4) return !(info->malformed = true);
      ts += delta + (LoadLE(p, 4) << 27);
      p += 4;
    } else if (type_len == eh.time_stamp) {
      if (end - p < 4) return !(info->malformed = true);
      // Absolute timestamp; the kernel keeps the top bits of the current time.
      uint64_t abs = (LoadLE(p, 4) << 27) | delta;
      ts = (ts & ~((1ull << 59) - 1)) | abs;
      p += 4;
    } else if (type_len <= eh.data_max) {
      uint32_t size;
      if (type_len == 0) {
        if (end - p < 4) return !(info->malformed = true);
        size = static_cast<uint32_t>(LoadLE(p, 4));
        if (size < 4) return !(info->malformed = true);
        size -= 4;
        p += 4;
      } else {
        size = type_len * 4;
      }
      if (size > static_cast<uint64_t>(end - p)) return !(info->malformed = true);
      ts += delta;
      on_record(ts, p, size);
      p += size;
    } else {
      return !(info->malformed = true);
    }
  }
  info->last_timestamp = ts;
  return true;
}

}  // namespace fathom::recorder
