// Turns sorted ftrace events (full FtraceEvent and compact_sched) into sched,
// thread_state, counters, slices (atrace markers) and the raw ftrace_event
// table with args.
#pragma once

#include <cstdint>

#include "core/import/compact_sched.h"
#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

class FtraceParser {
 public:
  explicit FtraceParser(TraceContext* ctx);
  ~FtraceParser();

  void ParseFtraceEvent(int64_t ts, uint32_t cpu, proto::Bytes event);
  void ParseCompactSwitch(int64_t ts, uint32_t cpu, const CompactSwitchRecord& r);
  void ParseCompactWaking(int64_t ts, uint32_t cpu, const CompactWakingRecord& r);
  // Closes what is still open (last sched slice per CPU keeps dur -1).
  void OnImportFinished();

 private:
  TraceContext* ctx_;
};

}  // namespace fathom
