// linux.perf: samples call stacks on every CPU with the kernel's perf events (a
// cpu-clock timer by default, which needs no PMU), and writes Perfetto PerfSample
// packets whose callstacks, frames and mappings are interned on the source's sequence,
// named from each binary's own symbols. Stacks come from the kernel's frame-pointer
// walk (PERF_SAMPLE_CALLCHAIN): programs built without frame pointers give short stacks.
//
// Without the right to sample every process (perf_event_paranoid > 0 and no
// CAP_PERFMON), it falls back to the target processes' own threads, which an
// unprivileged user may sample when the config names them.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "code_interner.h"
#include "config.h"
#include "kernel_symbols.h"
#include "trace_writer.h"

namespace fathom::recorder {

class PerfSource {
 public:
  PerfSource(const PerfSourceConfig& config, device::TraceWriter* writer, uint32_t sequence_id);
  ~PerfSource();
  PerfSource(const PerfSource&) = delete;
  PerfSource& operator=(const PerfSource&) = delete;

  // Opens the events (nothing is sampled yet); an error says why and how to allow it.
  Status Start();
  // Maps the sample buffers and starts sampling. After any fork: the kernel does not
  // copy a perf buffer's mapping into a child.
  Status Enable();
  // Reads every CPU's ring buffer and writes the samples.
  void Drain();
  void Stop();
  uint32_t read_period_ms() const;
  const std::vector<std::string>& notes() const { return notes_; }
  // Called with each sampled pid (process names come from linux.process_stats).
  void set_pid_callback(std::function<void(int32_t)> cb) { on_pid_ = std::move(cb); }
  uint64_t samples_written() const { return samples_written_; }

 private:
  struct Buffer {
    int fd = -1;
    void* base = nullptr;  // metadata page, then the data pages
    size_t data_size = 0;
    uint32_t cpu = 0;
    uint64_t timebase_count = 0;  // the timebase's running total, for timebase_count
  };
  struct Sample {
    uint32_t pid = 0, tid = 0, cpu = 0, cpu_mode = 0;
    uint64_t time = 0, period = 0;
    const uint64_t* ips = nullptr;
    uint64_t nr = 0;
  };

  // These return 0 or the errno that stopped them.
  int OpenAllCpus();
  int OpenTargetThreads();
  int OpenOne(int pid, int cpu, bool exclude_kernel);
  void CloseAll();
  void DrainBuffer(Buffer& b);
  void OnRecord(Buffer& b, const uint8_t* rec, uint16_t type, uint16_t misc);
  bool InScope(uint32_t pid);
  uint64_t CallstackIid(const Sample& s);
  void WriteSample(const Sample& s, uint64_t timebase_count, uint64_t callstack_iid);
  void WriteLost(uint32_t cpu, uint64_t lost);
  void WriteDefaultsOnce();

  PerfSourceConfig config_;
  device::TraceWriter* writer_;
  uint32_t sequence_id_;
  std::vector<Buffer> buffers_;
  std::vector<uint8_t> wrap_;  // a record that wraps around the ring, copied out whole
  device::CodeInterner code_;
  std::map<uint32_t, device::CodeInterner::ProcessCode> processes_;
  std::unordered_map<uint32_t, bool> in_scope_;
  KernelSymbols kernel_;
  std::function<void(int32_t)> on_pid_;
  std::vector<std::string> notes_;
  bool wrote_defaults_ = false;
  uint64_t samples_written_ = 0;
};

}  // namespace fathom::recorder
