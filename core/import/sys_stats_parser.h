// System-wide /proc and /sys polling: SysStats (meminfo, vmstat, per-CPU
// times, forks, irqs, frequencies, PSI, thermal, cpuidle) and CpuInfo (the
// `cpu` and `cpu_available_frequencies` tables).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/import/args_tracker.h"
#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

class SysStatsParser {
 public:
  explicit SysStatsParser(TraceContext* ctx);

  void ParseSysStats(int64_t ts, proto::Bytes payload);
  void ParseCpuInfo(proto::Bytes payload);

 private:
  void AddArmIdentifierArgs(proto::Bytes id, ArgsTracker::Builder* args);
  void AddCpuFeatureArgs(uint64_t features, ArgsTracker::Builder* args);
  void PushGlobal(int64_t ts, std::string_view name, std::string_view type, double value);
  void PushCpu(int64_t ts, uint32_t cpu, std::string_view name, std::string_view type,
               double value);

  TraceContext* ctx_;
  std::vector<std::string> meminfo_names_;  // by MeminfoCounters value
  std::vector<std::string> vmstat_names_;   // by VmstatCounters value
};

}  // namespace fathom
