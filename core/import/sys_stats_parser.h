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
#include "core/import/track_tracker.h"

namespace fathom {

class SysStatsParser {
 public:
  explicit SysStatsParser(TraceContext* ctx);

  void ParseSysStats(int64_t ts, proto::Bytes payload);
  void ParseCpuInfo(proto::Bytes payload);

 private:
  void AddArmIdentifierArgs(proto::Bytes id, ArgsTracker::Builder* args);
  void AddCpuFeatureArgs(uint64_t features, ArgsTracker::Builder* args);
  void ParseSysStatsField(int64_t ts, const proto::Field& f, uint32_t* cpufreq_cpu);
  void PushGlobal(int64_t ts, std::string_view name, std::string_view type, double value,
                  const TrackDims& dims = {});
  void PushCpu(int64_t ts, uint32_t cpu, std::string_view name, std::string_view type, double value,
               const TrackDims& dims = {});

  TraceContext* ctx_;
  std::vector<std::string> meminfo_names_;  // by MeminfoCounters value
  std::vector<std::string> vmstat_names_;   // by VmstatCounters value
};

}  // namespace fathom
