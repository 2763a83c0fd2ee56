// CpuPerUidData packets (Android's per-UID CPU time, per CPU cluster) as
// upstream shows them: a counter per UID and cluster ("CPU for UID 1000
// CL0", type android_cpu_per_uid) holding the cumulative time in ms, and a
// total per cluster for system UIDs and for app UIDs ("CPU for System CL0",
// "CPU for Apps CL0", type android_cpu_per_uid_totals).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <utility>

#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

// TracePacket.cpu_per_uid_data (not in Fathom's proto subset).
inline constexpr uint32_t kCpuPerUidDataFieldNumber = 119;

class CpuPerUidParser {
 public:
  explicit CpuPerUidParser(TraceContext* ctx) : ctx_(ctx) {}
  void Parse(int64_t ts, proto::Bytes payload);

 private:
  enum Group { kSystem = 0, kApps = 1 };
  void PushTotals(int64_t ts, Group group, uint32_t cluster);

  TraceContext* ctx_;
  uint32_t cluster_count_ = 0;  // given by the first packet, kept after
  bool seen_first_packet_ = false;
  // Cumulative ms per (uid, cluster); isolated UIDs share one entry per user.
  std::map<std::pair<uint32_t, uint32_t>, double> per_uid_;
  std::map<std::pair<int, uint32_t>, double> totals_;  // (group, cluster)
};

}  // namespace fathom
