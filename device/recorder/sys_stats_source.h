// linux.sys_stats: /proc/meminfo, /proc/vmstat and /proc/stat counters at their periods.
// Each file stays open and is re-read with pread() into a reused buffer; keys are mapped to
// the MeminfoCounters/VmstatCounters enums once, at construction (enum numbers come from
// the generated schema, never from constants here).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "config.h"
#include "proto_writer.h"
#include "trace_writer.h"

namespace fathom::recorder {

class SysStatsSource {
 public:
  SysStatsSource(const SysStatsSourceConfig& config, device::TraceWriter* writer,
                 uint32_t sequence_id, std::string proc_root = "/proc");
  ~SysStatsSource();
  // Emits one SysStats packet with every counter group whose period elapsed.
  bool MaybePoll(int64_t now_mono_ns);

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  using KeyMap = std::unordered_map<std::string, int32_t, Hash, std::equal_to<>>;
  void ReadMeminfo();
  void ReadVmstat();
  void ReadStat();

  SysStatsSourceConfig config_;
  device::TraceWriter* writer_;
  uint32_t sequence_id_;
  int meminfo_fd_ = -1, vmstat_fd_ = -1, stat_fd_ = -1;
  KeyMap meminfo_keys_, vmstat_keys_;  // file key -> enum value (filtered by the config)
  std::vector<bool> stat_enabled_;     // by SysStatsConfig.StatCounters value
  int64_t next_meminfo_ = 0, next_vmstat_ = 0, next_stat_ = 0;
  uint64_t ns_per_tick_ = 10000000;
  std::string buf_;
  device::ProtoWriter packet_;
};

}  // namespace fathom::recorder
