// Ftrace events of block, file and network I/O that become slices, as
// upstream models them (the raw ftrace_event row is written by FtraceParser
// before dispatch):
//
// - block_io_start/block_io_done: a "block_io" slice per request on the
//   device's unnamed track (type block_io, dimension block_device). A done
//   closes the innermost open slice of its device, whatever its sector; both
//   events set the slice arg `sector` (the done's value wins).
// - android_fs_dataread_start/end: an "android_fs_data_read" slice on the
//   compressed "android_fs" tracks (TrackCompressor, cookie = the reading
//   thread's pid, so one thread's reads nest). An end finds its start by
//   (inode, offset) and closes the innermost open slice of that thread's
//   track. Args: file_path, offset_start, bytes_read_start at the start;
//   offset_end, bytes_read_end at the end.
// - napi_gro_receive_entry/exit: slices named by the device on the CPU's
//   "Napi Gro Cpu N" track (category napi_gro), args len and ret.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>

#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"
#include "core/import/track_compressor.h"

namespace fathom {

class FtraceIoEvents {
 public:
  explicit FtraceIoEvents(TraceContext* ctx);

  // True when `event_id` (an FtraceEvent field) is one of the events above.
  static bool Handles(uint32_t event_id);
  void Parse(int64_t ts, uint32_t cpu, uint32_t pid, uint32_t event_id, proto::Bytes payload);

 private:
  void ParseBlockIo(int64_t ts, proto::Bytes payload, bool start);
  uint32_t BlockDeviceTrack(uint64_t dev);
  void ParseAndroidFsStart(int64_t ts, uint32_t pid, proto::Bytes payload);
  void ParseAndroidFsEnd(int64_t ts, proto::Bytes payload);
  void ParseNapiGro(int64_t ts, uint32_t cpu, proto::Bytes payload, bool entry);

  TraceContext* ctx_;
  TraceStorage* storage_;
  std::unordered_map<uint64_t, uint32_t> block_tracks_;  // dev -> track
  TrackCompressor android_fs_tracks_;
  // (inode, offset) of a read in flight -> pid of the thread that started it.
  std::map<std::pair<uint64_t, int64_t>, uint32_t> android_fs_reads_;
  StringId block_io_, android_fs_, android_fs_data_read_, napi_gro_, cpu_napi_gro_;
};

}  // namespace fathom
