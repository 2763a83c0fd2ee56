// linux.ftrace: configures tracefs, drains each CPU's trace_pipe_raw and writes
// FtraceEventBundle packets (full events, or compact_sched for sched_switch/sched_waking),
// restoring tracefs on Stop(). All layouts come from tracefs (ftrace_format.h); the event
// and field numbers come from the generated schema, matched by name.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "config.h"
#include "ftrace_format.h"
#include "proto_schema.h"
#include "proto_writer.h"
#include "trace_writer.h"

namespace fathom::recorder {

class FtraceSource {
 public:
  // `tracefs_root` empty: /sys/kernel/tracing, then /sys/kernel/debug/tracing. A given root
  // may be a fake directory (tests): missing control files are then created, and
  // trace_pipe_raw may be a regular file.
  FtraceSource(const FtraceSourceConfig& config, device::TraceWriter* writer, uint32_t seq_id,
               std::string tracefs_root);
  ~FtraceSource();

  // Called for every pid/tid seen in events (for ProcessTree entries).
  void set_pid_callback(std::function<void(int32_t)> cb) { on_pid_ = std::move(cb); }

  Status Start();
  // Reads every available page of every CPU; returns the number of pages read.
  size_t Drain();
  void Stop();  // final drain, end-of-trace stats, tracefs restored

  uint32_t drain_period_ms() const {
    return config_.drain_period_ms ? config_.drain_period_ms : 100;
  }
  const std::vector<std::string>& notes() const { return notes_; }
  uint64_t events_written() const { return events_written_; }

 private:
  struct FieldTranslation {
    uint32_t offset = 0, size = 0;
    bool is_signed = false, data_loc = false, c_string = false, pointer = false;
    uint32_t proto_number = 0;
    device::FieldKind proto_kind = device::FieldKind::kVarint;
    std::string name;  // generic events only
  };
  struct EventTranslation {
    bool enabled = false;
    std::string name;
    uint32_t proto_field = 0;  // FtraceEvent field; kGenericFieldNumber for generic
    std::vector<FieldTranslation> fields;
    std::vector<uint32_t> pid_offsets;  // pid-like int32 fields, for ProcessTree discovery
  };
  struct CompactFormat {
    uint32_t id = 0;
    uint32_t next_pid = 0, next_prio = 0, next_comm = 0, prev_state = 0, prev_state_size = 0;
    uint32_t pid = 0, prio = 0, comm = 0, target_cpu = 0, comm_size = 16, next_comm_size = 16;
    uint32_t common_flags = 0;
    bool ok = false;
  };
  struct CompactBuffer {
    std::vector<uint64_t> sw_ts, wk_ts;
    std::vector<int64_t> sw_state;
    std::vector<int32_t> sw_pid, sw_prio, wk_pid, wk_prio, wk_cpu;
    std::vector<uint32_t> sw_comm, wk_comm, wk_flags;
    std::vector<std::string> interned;
    uint64_t last_sw = 0, last_wk = 0;
    uint32_t Intern(const char* s, size_t max);
    bool empty() const { return sw_ts.empty() && wk_ts.empty(); }
    void Clear();
  };
  struct Cpu {
    int fd = -1;
    uint64_t pages = 0, lost_pages = 0, lost_events = 0, malformed = 0;
  };

  Status FindRoot();
  Status ResolveEvents(std::vector<std::pair<std::string, std::string>>* out);
  void BuildTranslation(const EventFormat& format);
  void Write(const std::string& file, std::string_view value);
  void SaveAndSet(const std::string& file, std::string_view value);
  void DecodeRecord(uint32_t cpu, uint64_t ts, const uint8_t* data, uint32_t size);
  void BeginBundle(uint32_t cpu, bool lost);
  void EndBundle();
  void EmitStats(bool end);
  void StartAtrace();
  void StopAtrace();

  FtraceSourceConfig config_;
  device::TraceWriter* writer_;
  uint32_t seq_id_;
  std::string root_;
  bool fake_root_;
  PageHeaderLayout page_layout_;
  EventHeaderLayout event_layout_;
  std::vector<EventTranslation> events_;  // by event id
  CompactFormat switch_, waking_;
  uint32_t common_pid_offset_ = 4, common_flags_offset_ = 2;
  std::vector<Cpu> cpus_;
  std::vector<std::pair<std::string, std::string>> saved_;  // file, value to restore
  std::vector<std::string> unknown_events_, failed_events_;
  std::vector<std::string> notes_;
  std::string atrace_errors_;
  bool atrace_started_ = false;
  bool started_ = false;
  std::function<void(int32_t)> on_pid_;
  std::vector<uint8_t> page_;
  device::ProtoWriter packet_;
  size_t bundle_token_ = 0;
  bool in_bundle_ = false;
  CompactBuffer compact_;
  uint64_t events_written_ = 0;
  const device::SchemaMessage* ftrace_event_msg_ = nullptr;
};

}  // namespace fathom::recorder
