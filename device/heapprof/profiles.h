// The collector's bookkeeping: per profiled process the live sampled addresses and the
// cumulative per-callstack totals, plus the interning of strings, mappings, frames and
// callstacks shared by all processes (one trace sequence). Serialises ProfilePackets in
// the inline-table form (strings/frames/callstacks/mappings inside the packet). Readers
// forget a ProfilePacket's tables when its dump ends, so each dump carries every entry
// again, as heapprofd's own dumps do.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "device/common/code_interner.h"
#include "device/heapprof/live_map.h"
#include "device/heapprof/wire.h"

namespace fathom::heapprof {

inline constexpr uint32_t kSequenceId = 1;

struct ProcessInfo {
  pid_t pid = 0;
  bool from_startup = false;
  bool disconnected = false;
  bool corrupted = false;
  uint64_t overruns = 0;
  uint64_t spin_blocked_ns = 0;
  uint64_t heap_samples = 0;
  uint64_t unwinding_errors = 0;  // samples with no frame outside the profiler
};

class Profiles {
 public:
  explicit Profiles(uint64_t interval) : interval_(interval) {}

  // Reads /proc/PID/maps and cmdline; returns a serialized ProcessTree TracePacket.
  std::string AddProcess(pid_t pid, bool from_startup, uint64_t ts);
  // Undoes AddProcess for a client whose handshake failed after it.
  void ForgetProcess(pid_t pid) { processes_.erase(pid); }
  ProcessInfo* Info(pid_t pid);
  void OnAlloc(pid_t pid, const AllocRecord& rec, const uint64_t* pcs);
  void OnFree(pid_t pid, uint64_t addr);
  // dlclose unmapped code in the process: pcs are looked up in fresh maps from now on.
  void OnCodeUnloaded(pid_t pid);
  // A serialized TracePacket with a ProfilePacket: one process dump per process.
  // `ts` is BOOTTIME (the packet's); `coarse_ts` MONOTONIC_COARSE, the clock readers
  // take each process dump's own timestamp in.
  std::string Dump(uint64_t ts, uint64_t coarse_ts);

 private:
  struct Totals {
    uint64_t alloc_bytes = 0, freed_bytes = 0, alloc_count = 0, free_count = 0;
  };
  // Per sample: the call stack's totals (std::map nodes do not move), so a free needs
  // one hash lookup and no search of `totals`.
  struct Live {
    Totals* totals = nullptr;
    uint64_t bytes = 0;
  };
  struct CallstackRef {
    uint64_t iid;
    Totals* totals;
  };
  // Looks raw pc bytes up without building a std::string per record. Keys are whole
  // 64-bit pcs: a multiply-xorshift per word is a fraction of a generic byte hash.
  struct BytesHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      uint64_t h = s.size();
      size_t i = 0;
      for (; i + 8 <= s.size(); i += 8) {
        uint64_t w;
        memcpy(&w, s.data() + i, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
      }
      for (; i < s.size(); i++) h = (h ^ static_cast<uint8_t>(s[i])) * 0x100000001b3ull;
      return h;
    }
  };
  struct Process {
    ProcessInfo info;
    device::CodeInterner::ProcessCode code;
    std::unordered_map<std::string, CallstackRef, BytesHash, std::equal_to<>> callstack_of_pcs;
    // The previous sample's pcs and callstack: a hot allocation site repeats its stack
    // sample after sample, and one memcmp is a fraction of hashing the pcs.
    std::string last_pcs;
    CallstackRef last_callstack{0, nullptr};
    LiveMap<Live> live;
    std::map<uint64_t, Totals> totals;  // by callstack iid
  };

  void OnFree(Process& p, uint64_t addr);
  // Charges a sample to its callstack's totals and files its address as live.
  void Track(Process& p, const AllocRecord& rec, Totals* t);

  uint64_t interval_;
  std::map<pid_t, Process> processes_;
  // Strings, mappings, frames, callstacks of all processes; written into ProfilePackets.
  device::CodeInterner code_{/*name_empty_strings=*/true};
  // Every entry interned so far, serialized, by ProfilePacket field. Totals are cumulative
  // and every process is in every dump, so each dump uses (nearly) all of them: a dump
  // repeats them all rather than track which it uses.
  std::map<uint32_t, std::vector<std::string>> tables_;
  uint64_t packet_index_ = 0;
};

}  // namespace fathom::heapprof
