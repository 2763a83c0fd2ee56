// /proc snapshots: ProcessTree (processes, threads, names, parents, uids,
// start times) and ProcessStats (per-process memory counters).
#pragma once

#include <cstdint>

#include "core/import/process_args.h"
#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

class ProcessTreeParser {
 public:
  explicit ProcessTreeParser(TraceContext* ctx);

  void ParseProcessTree(int64_t ts, proto::Bytes payload);
  void ParseProcessStats(int64_t ts, proto::Bytes payload);
  // Writes the process args the snapshots gave (is_kthread,
  // is_peak_rss_resettable): upstream keeps each process's latest value of
  // each and writes them once the trace is read, before the other sets
  // written then.
  void FlushProcessArgs() { args_.Flush(); }

 private:
  void ParseProcess(proto::Bytes process);
  void ParseProcessStatsEntry(int64_t ts, proto::Bytes process);
  // Creates the process of an entry holding a Chrome field (first pass).
  void CreateProcessWithChromeFields(proto::Bytes process);

  TraceContext* ctx_;
  ProcessArgs args_;
};

}  // namespace fathom
