// /proc snapshots: ProcessTree (processes, threads, names, parents, uids,
// start times) and ProcessStats (per-process memory counters).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

class ProcessTreeParser {
 public:
  explicit ProcessTreeParser(TraceContext* ctx);

  void ParseProcessTree(int64_t ts, proto::Bytes payload);
  void ParseProcessStats(int64_t ts, proto::Bytes payload);
  // Writes the process args the snapshots gave (is_kthread,
  // is_peak_rss_resettable). Upstream keeps each process's latest value of
  // each and writes them once the trace is read, before the other sets
  // written then.
  void FlushProcessArgs();

 private:
  void SetProcessArg(uint32_t upid, const char* key, bool value);
  void ParseProcess(proto::Bytes process);
  void ParseProcessStatsEntry(int64_t ts, proto::Bytes process);

  TraceContext* ctx_;
  struct BoolArg {
    const char* key;
    bool value;
  };
  std::map<uint32_t, std::vector<BoolArg>> process_args_;  // by upid
};

}  // namespace fathom
