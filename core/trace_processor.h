// The trace processor facade: load a trace file (any size, any supported
// format), then query it with SQL or read its tables directly.
//
//   fathom::TraceProcessor tp;
//   if (auto st = tp.LoadFile("trace.pftrace"); !st.ok()) ...
//   auto it = tp.Query("select count(*) from sched");
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/sql/sql_engine.h"
#include "core/storage/trace_storage.h"

namespace fathom {

struct TraceContext;

struct LoadProgress {
  enum Phase { kReading, kSorting, kDone } phase = kReading;
  uint64_t bytes_read = 0;  // of the file on disk
  uint64_t file_size = 0;
  uint64_t packets = 0;
  uint64_t events = 0;  // tokenized so far (reading) or parsed (sorting)
  uint64_t events_total = 0;
};

// Return false to cancel the load.
using ProgressCallback = std::function<bool(const LoadProgress&)>;

struct LoadReport {
  std::string format;
  uint64_t file_bytes = 0;
  uint64_t packets = 0;
  uint64_t events = 0;
  uint64_t peak_sort_bytes = 0;
  // Problems that did not stop the load ("file: offset N: ..."): a truncated
  // tail, a corrupt region. What came before them was loaded.
  std::vector<std::string> warnings;
};

class TraceProcessor {
 public:
  TraceProcessor();
  ~TraceProcessor();
  TraceProcessor(const TraceProcessor&) = delete;
  TraceProcessor& operator=(const TraceProcessor&) = delete;

  // Loads a whole trace. Errors (unreadable file, unknown format, nothing
  // loadable) name the file and the byte offset. Call once per instance.
  Status LoadFile(const std::string& path, const ProgressCallback& progress = {});
  Status LoadBuffer(const uint8_t* data, size_t size, const std::string& name = "<buffer>");

  const LoadReport& report() const { return report_; }
  TraceStorage& storage();
  const TraceStorage& storage() const;

  std::unique_ptr<QueryIterator> Query(std::string sql);
  // Stops the query running now (from any thread, e.g. a UI's Cancel).
  void Interrupt();

 private:
  class Loader;
  Status Load(class ChunkReader* reader, const std::string& name, const ProgressCallback& progress);

  std::unique_ptr<TraceContext> ctx_;
  std::unique_ptr<SqlEngine> sql_;
  LoadReport report_;
};

}  // namespace fathom
