// Ftrace events that describe devices and subsystems rather than scheduling:
// interrupts, CPU frequency limits, kprobes, UFS commands, wakeup sources and the
// network stack. Each becomes
// slices or counters on tracks named as upstream names them (the raw
// ftrace_event row is written by FtraceParser before dispatch).
//
// - irq_handler_* / softirq_*: slices (category "irq") on the CPU's
//   "Irq Cpu N" / "SoftIrq Cpu N" track;
// - cpu_frequency_limits: "Cpu N Max/Min Freq Limit" CPU counters;
// - thermal_temperature: "<zone> Temperature" global counters;
// - kprobe_event: slices on the writing thread (begin/end/instant);
// - ufshcd_command: "io.ufs.command.count" (commands in flight, from the
//   doorbell register) and one slice per command on "io.ufs.command.tag[NNN]";
// - wakeup_source_activate/deactivate: reference counted per source, a slice
//   "Wakelock(<name>)" from the first activate to the last deactivate;
// - netif_receive_skb / net_dev_xmit: per-interface cumulative KB counters;
// - kfree_skb: running count of freed IPv4/IPv6 packets;
// - inet_sock_set_state: one track per TCP socket, a slice per state;
// - tcp_retransmit_skb: instants on "TCP Retransmit Skb".
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

class FtraceDeviceEvents {
 public:
  explicit FtraceDeviceEvents(TraceContext* ctx);

  // True when `event_id` (an FtraceEvent field) is one of the events above.
  static bool Handles(uint32_t event_id);
  void Parse(int64_t ts, uint32_t cpu, uint32_t pid, uint32_t event_id, proto::Bytes payload);

 private:
  uint32_t CpuSliceTrack(uint32_t cpu, bool softirq);
  void ParseIrqEntry(int64_t ts, uint32_t cpu, proto::Bytes payload);
  void ParseIrqExit(int64_t ts, uint32_t cpu, proto::Bytes payload);
  void ParseSoftirq(int64_t ts, uint32_t cpu, proto::Bytes payload, bool entry);
  void ParseCpuFrequencyLimits(int64_t ts, proto::Bytes payload);
  void ParseThermalTemperature(int64_t ts, proto::Bytes payload);
  void ParseKprobe(int64_t ts, uint32_t pid, proto::Bytes payload);
  void ParseUfshcdCommand(int64_t ts, proto::Bytes payload);
  void ParseWakeupSource(int64_t ts, proto::Bytes payload, bool activate);
  // netif_receive_skb and net_dev_xmit: `totals` holds bytes per interface.
  void ParseNetBytes(int64_t ts, uint32_t cpu, std::string_view dev, uint32_t len,
                     std::unordered_map<std::string, uint64_t>* totals, std::string_view suffix,
                     StringId type);
  void ParseKfreeSkb(int64_t ts, proto::Bytes payload);
  void ParseInetSockSetState(int64_t ts, uint32_t pid, proto::Bytes payload);
  void ParseTcpRetransmitSkb(int64_t ts, proto::Bytes payload);

  TraceContext* ctx_;
  TraceStorage* storage_;
  std::unordered_map<std::string, uint64_t> received_bytes_, transmitted_bytes_;
  std::unordered_map<std::string, uint32_t> wakeup_refs_;
  std::unordered_map<uint64_t, uint32_t> tcp_streams_;  // skaddr -> stream index
  uint64_t kfree_skb_ip_count_ = 0;
  StringId net_receive_, net_transmit_, net_kfree_skb_, kfree_skb_name_, tcp_state_, tcp_event_,
      net_socket_set_state_, net_tcp_retransmit_skb_, tcp_retransmit_name_, ufs_count_name_,
      ufs_count_type_, ufs_tag_type_, wakelock_type_, cpu_max_limit_, cpu_min_limit_, irq_category_,
      cpu_irq_, cpu_softirq_, thermal_type_;
};

}  // namespace fathom
