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

#include "base/status.h"
#include "core/import/import_options.h"
#include "core/import/load_limits.h"
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

// How a load uses the machine. A big trace is read ahead, merged and given
// its thread_state rows on helper threads while the loading thread parses
// (on two cores the loading thread is the critical path). Tests shrink the
// sizes to run those paths on small traces.
struct LoadTuning {
  bool threads = true;
  size_t chunk_bytes = 16 << 20;  // read per chunk; a source longer than one is read ahead
  // Free bytes in front of a chunk read ahead, for the previous chunk's
  // unfinished packet (a longer one costs a copy of the chunk).
  size_t read_ahead_headroom = 4 << 20;
  size_t threaded_merge_min_events = 1 << 16;  // fewer: the threads would cost more than they save
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

  // Before loading.
  void set_load_tuning(const LoadTuning& tuning) { tuning_ = tuning; }
  void set_load_limits(const LoadLimits& limits) { limits_ = limits; }
  void set_import_options(const ImportOptions& options) { options_ = options; }

  const LoadReport& report() const { return report_; }
  TraceStorage& storage();
  const TraceStorage& storage() const;

  // PerfettoSQL (core/sql/perfetto_sql): INCLUDE PERFETTO MODULE finds
  // modules in these packages and standard library. Change them any time.
  psql::SqlPackages& sql_packages() { return sql_->sql_packages(); }

  std::unique_ptr<QueryIterator> Query(std::string sql);
  // Stops the query running now (from any thread, e.g. a UI's Cancel).
  void Interrupt();

 private:
  Status Load(class ChunkReader* reader, const std::string& name, const ProgressCallback& progress);

  std::unique_ptr<TraceContext> ctx_;
  std::unique_ptr<SqlEngine> sql_;
  LoadReport report_;
  LoadTuning tuning_;
  LoadLimits limits_;
  ImportOptions options_;
};

}  // namespace fathom
