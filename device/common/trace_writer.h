// Crash-safe Perfetto trace file writer shared by the on-device programs.
//
// A trace file is a `Trace` message: a sequence of `packet` (field 1) records. The writer
// frames each TracePacket, buffers whole packets in memory and appends them to the file
// on Flush(). What a crash keeps:
//  - kill -9 / a crash of the program: everything up to the last completed Flush() is in
//    the kernel's page cache and stays in the file. The file is written in place (no
//    OUT.tmp + rename, which would lose everything on kill -9).
//  - power loss / kernel panic: everything up to the last Flush() with `sync_on_flush`
//    (fdatasync).
//  - a failed write (disk full): the file is truncated back to the last packet boundary.
// A kill that lands in the middle of a flush's write() can leave a partial packet at the
// end; readers (Fathom's core, Perfetto's) drop such a tail and keep the rest.
//
// Thread-safe: several threads may append; packets are never interleaved.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "base/status.h"

namespace fathom::device {

struct TraceWriterOptions {
  // MaybeFlush() writes when this much time passed since the last flush (0: only when
  // the buffer is over max_buffer_bytes, or on Flush/Close).
  uint32_t flush_period_ms = 0;
  // Stop accepting packets once the file would grow past this (0: unlimited).
  uint64_t max_file_size_bytes = 0;
  // Buffered bytes that force a flush from AppendPacket.
  size_t max_buffer_bytes = 1 << 20;
  // fdatasync after each flush (survives power loss, costs a disk round trip).
  bool sync_on_flush = true;
};

class TraceWriter {
 public:
  // Creates or truncates `path`. Errors are one line, e.g. "cannot create OUT: Permission denied".
  static Result<std::unique_ptr<TraceWriter>> Open(const std::string& path,
                                                   const TraceWriterOptions& options);
  ~TraceWriter();  // Closes (flushing) if Close() was not called.

  // Appends one serialized TracePacket (the packet's own bytes, without the Trace framing).
  // Returns an error when the file size limit is reached (see full()) or a flush failed.
  Status AppendPacket(std::string_view packet);
  // Flushes when the flush period elapsed. Call it from the program's main loop.
  Status MaybeFlush();
  Status Flush();
  Status Close();

  // True once a packet was refused because of max_file_size_bytes.
  bool full() const;
  uint64_t bytes_written() const;  // on disk after the last flush
  uint64_t packets_written() const;
  uint64_t flush_count() const;

 private:
  TraceWriter(int fd, std::string path, const TraceWriterOptions& options);
  Status FlushLocked();

  mutable std::mutex mu_;
  int fd_ = -1;
  std::string path_;
  TraceWriterOptions options_;
  std::string buffer_;  // whole framed packets not yet written
  uint64_t buffered_packets_ = 0;
  uint64_t file_size_ = 0;
  uint64_t packets_written_ = 0;
  uint64_t flushes_ = 0;
  int64_t last_flush_ns_ = 0;
  bool full_ = false;
};

}  // namespace fathom::device
