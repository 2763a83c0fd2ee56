// FtraceStats packets: the counters the kernel's ftrace buffers reported when
// the recording started and when it ended, kept as the `stats` of the machine
// that wrote the packet (ftrace_cpu_*_begin/_end per CPU, ftrace_kprobe_*),
// with end minus start (_delta) once both phases of a counter were seen.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>

#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

class FtraceStatsParser {
 public:
  explicit FtraceStatsParser(TraceContext* ctx) : ctx_(ctx) {}
  void Parse(proto::Bytes payload);

 private:
  // FtraceCpuStats' counters, in the order of the stats they become.
  enum Counter { kEntries, kOverrun, kCommitOverrun, kBytes, kDroppedEvents, kReadEvents, kCount };
  using CpuCounters = std::array<int64_t, kCount>;
  struct MachineState {
    std::map<uint32_t, CpuCounters> begin_by_cpu;
    std::optional<std::pair<int64_t, int64_t>> begin_kprobe;  // hits, misses
  };

  void ParseCpuStats(proto::Bytes bytes, bool begin, MachineState* state);
  void ParseKprobeStats(proto::Bytes bytes, bool begin, MachineState* state);

  TraceContext* ctx_;
  std::map<uint32_t, MachineState> machines_;
};

}  // namespace fathom
