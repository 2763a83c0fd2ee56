#include "core/import/ftrace_device_events.h"

#include <bit>
#include <cstdio>

#include "core/import/args_tracker.h"
#include "core/import/process_tracker.h"
#include "core/import/slice_tracker.h"
#include "core/import/sorter.h"
#include "core/import/track_tracker.h"
#include "perfetto/trace/ftrace/ftrace_event_bundle.pb.h"

namespace fathom {

namespace pb = perfetto::protos;

namespace {

using Flat = proto::FlatMessage<16>;

// SCSI operation codes UFS devices see, by opcode (SPC/SBC names).
const char* ScsiOpcodeName(uint32_t opcode) {
  switch (opcode) {
    case 0x00:
      return "TEST UNIT READY";
    case 0x03:
      return "REQUEST SENSE";
    case 0x04:
      return "FORMAT UNIT";
    case 0x08:
      return "READ (6)";
    case 0x0a:
      return "WRITE (6)";
    case 0x12:
      return "INQUIRY";
    case 0x1b:
      return "START STOP UNIT";
    case 0x1d:
      return "SEND DIAGNOSTIC";
    case 0x25:
      return "READ CAPACITY (10)";
    case 0x28:
      return "READ (10)";
    case 0x2a:
      return "WRITE (10)";
    case 0x2f:
      return "VERIFY";
    case 0x34:
      return "PRE-FETCH (10)";
    case 0x35:
      return "SYNCHRONIZE CACHE (10)";
    case 0x3b:
      return "WRITE BUFFER";
    case 0x3c:
      return "READ BUFFER";
    case 0x42:
      return "UNMAP";
    case 0x55:
      return "MODE SELECT (10)";
    case 0x5a:
      return "MODE SENSE (10)";
    case 0x88:
      return "READ (16)";
    case 0x8a:
      return "WRITE (16)";
    case 0x90:
      return "PRE-FETCH (16)";
    case 0x91:
      return "SYNCHRONIZE CACHE (16)";
    case 0x9e:
      return "READ CAPACITY (16)";
    case 0xa0:
      return "REPORT LUNS";
    case 0xa2:
      return "SECURITY PROTOCOL IN";
    case 0xb5:
      return "SECURITY PROTOCOL OUT";
    default:
      return "UNDEFINED";
  }
}

// Linux TCP states (include/net/tcp_states.h), by number.
constexpr const char* kTcpStateNames[] = {
    "TCP_UNKNOWN",   "TCP_ESTABLISHED", "TCP_SYN_SENT",    "TCP_SYN_RECV",   "TCP_FIN_WAIT1",
    "TCP_FIN_WAIT2", "TCP_TIME_WAIT",   "TCP_CLOSE",       "TCP_CLOSE_WAIT", "TCP_LAST_ACK",
    "TCP_LISTEN",    "TCP_CLOSING",     "TCP_NEW_SYN_RECV"};
constexpr int32_t kTcpMaxStates = sizeof(kTcpStateNames) / sizeof(kTcpStateNames[0]);
constexpr int32_t kTcpEstablished = 1;
constexpr int32_t kTcpSynSent = 2;
constexpr uint32_t kIpProtoTcp = 6;
constexpr uint32_t kAfInet = 2;
constexpr uint32_t kAfInet6 = 10;
constexpr uint32_t kEthPIp = 0x0800;
constexpr uint32_t kEthPIpv6 = 0x86dd;

// ufshcd_command str_t: the command is being sent / has completed.
constexpr uint32_t kUfsSend = 0;
constexpr uint32_t kUfsComplete = 1;

}  // namespace

FtraceDeviceEvents::FtraceDeviceEvents(TraceContext* ctx)
    : ctx_(ctx), storage_(ctx->storage.get()) {
  TraceStorage* s = storage_;
  net_receive_ = s->Intern("net_receive");
  net_transmit_ = s->Intern("net_transmit");
  net_kfree_skb_ = s->Intern("net_kfree_skb");
  kfree_skb_name_ = s->Intern("Kfree Skb IP Prot");
  tcp_state_ = s->Intern("tcp_state");
  tcp_event_ = s->Intern("tcp_event");
  net_socket_set_state_ = s->Intern("net_socket_set_state");
  net_tcp_retransmit_skb_ = s->Intern("net_tcp_retransmit_skb");
  tcp_retransmit_name_ = s->Intern("TCP Retransmit Skb");
  ufs_count_name_ = s->Intern("io.ufs.command.count");
  ufs_count_type_ = s->Intern("ufs_command_count");
  ufs_tag_type_ = s->Intern("ufs_command_tag");
  wakelock_type_ = s->Intern("wakesource_wakelock");
  cpu_max_limit_ = s->Intern("cpu_max_frequency_limit");
  irq_category_ = s->Intern("irq");
  cpu_irq_ = s->Intern("cpu_irq");
  cpu_softirq_ = s->Intern("cpu_softirq");
  cpu_min_limit_ = s->Intern("cpu_min_frequency_limit");
  thermal_type_ = s->Intern("thermal_temperature");
}

bool FtraceDeviceEvents::Handles(uint32_t event_id) {
  using FE = pb::FtraceEvent;
  switch (event_id) {
    case FE::kIrqHandlerEntryFieldNumber:
    case FE::kIrqHandlerExitFieldNumber:
    case FE::kSoftirqEntryFieldNumber:
    case FE::kSoftirqExitFieldNumber:
    case FE::kCpuFrequencyLimitsFieldNumber:
    case FE::kThermalTemperatureFieldNumber:
    case FE::kKprobeEventFieldNumber:
    case FE::kUfshcdCommandFieldNumber:
    case FE::kWakeupSourceActivateFieldNumber:
    case FE::kWakeupSourceDeactivateFieldNumber:
    case FE::kNetifReceiveSkbFieldNumber:
    case FE::kNetDevXmitFieldNumber:
    case FE::kKfreeSkbFieldNumber:
    case FE::kInetSockSetStateFieldNumber:
    case FE::kTcpRetransmitSkbFieldNumber:
      return true;
    default:
      return false;
  }
}

void FtraceDeviceEvents::Parse(int64_t ts, uint32_t cpu, uint32_t pid, uint32_t event_id,
                               proto::Bytes payload) {
  using FE = pb::FtraceEvent;
  switch (event_id) {
    case FE::kIrqHandlerEntryFieldNumber:
      return ParseIrqEntry(ts, cpu, payload);
    case FE::kIrqHandlerExitFieldNumber:
      return ParseIrqExit(ts, cpu, payload);
    case FE::kSoftirqEntryFieldNumber:
      return ParseSoftirq(ts, cpu, payload, true);
    case FE::kSoftirqExitFieldNumber:
      return ParseSoftirq(ts, cpu, payload, false);
    case FE::kCpuFrequencyLimitsFieldNumber:
      return ParseCpuFrequencyLimits(ts, payload);
    case FE::kThermalTemperatureFieldNumber:
      return ParseThermalTemperature(ts, payload);
    case FE::kKprobeEventFieldNumber:
      return ParseKprobe(ts, pid, payload);
    case FE::kUfshcdCommandFieldNumber:
      return ParseUfshcdCommand(ts, payload);
    case FE::kWakeupSourceActivateFieldNumber:
      return ParseWakeupSource(ts, payload, true);
    case FE::kWakeupSourceDeactivateFieldNumber:
      return ParseWakeupSource(ts, payload, false);
    case FE::kNetifReceiveSkbFieldNumber: {
      using E = pb::NetifReceiveSkbFtraceEvent;
      Flat m(payload);
      return ParseNetBytes(ts, cpu, m[E::kNameFieldNumber].as_string(),
                           m[E::kLenFieldNumber].as_uint32(), &received_bytes_, " Received KB",
                           net_receive_);
    }
    case FE::kNetDevXmitFieldNumber: {
      using E = pb::NetDevXmitFtraceEvent;
      Flat m(payload);
      // A non-zero rc: the driver did not take the packet.
      if (m[E::kRcFieldNumber].as_int32() != 0) return;
      return ParseNetBytes(ts, cpu, m[E::kNameFieldNumber].as_string(),
                           m[E::kLenFieldNumber].as_uint32(), &transmitted_bytes_,
                           " Transmitted KB", net_transmit_);
    }
    case FE::kKfreeSkbFieldNumber:
      return ParseKfreeSkb(ts, payload);
    case FE::kInetSockSetStateFieldNumber:
      return ParseInetSockSetState(ts, pid, payload);
    case FE::kTcpRetransmitSkbFieldNumber:
      return ParseTcpRetransmitSkb(ts, payload);
    default:
      return;
  }
}

uint32_t FtraceDeviceEvents::CpuSliceTrack(uint32_t cpu, bool softirq) {
  char name[32];
  snprintf(name, sizeof name, softirq ? "SoftIrq Cpu %u" : "Irq Cpu %u", cpu);
  return ctx_->track_tracker->InternCpuTrack(cpu, storage_->Intern(name),
                                             softirq ? cpu_softirq_ : cpu_irq_);
}

void FtraceDeviceEvents::ParseIrqEntry(int64_t ts, uint32_t cpu, proto::Bytes payload) {
  using E = pb::IrqHandlerEntryFtraceEvent;
  Flat m(payload);
  std::string name = "IRQ (";
  name += m[E::kNameFieldNumber].as_string();
  name += ')';
  ctx_->slice_tracker->Begin(ts, CpuSliceTrack(cpu, false), irq_category_, storage_->Intern(name));
}

void FtraceDeviceEvents::ParseIrqExit(int64_t ts, uint32_t cpu, proto::Bytes payload) {
  using E = pb::IrqHandlerExitFtraceEvent;
  Flat m(payload);
  // The kernel's irqreturn_t: 1 is IRQ_HANDLED.
  bool handled = m[E::kRetFieldNumber].as_int32() == 1;
  ctx_->slice_tracker->End(
      ts, CpuSliceTrack(cpu, false), irq_category_, kNullStringId,
      ctx_->args_tracker->NewSet().AddString("ret", handled ? "handled" : "unhandled"));
}

void FtraceDeviceEvents::ParseSoftirq(int64_t ts, uint32_t cpu, proto::Bytes payload, bool entry) {
  // Both events: vec = 1.
  static_assert(+pb::SoftirqEntryFtraceEvent::kVecFieldNumber ==
                +pb::SoftirqExitFtraceEvent::kVecFieldNumber);
  // The kernel's softirq vectors (include/linux/interrupt.h), by number.
  static constexpr const char* kActions[] = {"HI",       "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                             "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};
  Flat m(payload);
  uint32_t vec = m[pb::SoftirqEntryFtraceEvent::kVecFieldNumber].as_uint32();
  if (vec >= sizeof(kActions) / sizeof(kActions[0])) return;
  uint32_t track = CpuSliceTrack(cpu, true);
  if (!entry) {
    ctx_->slice_tracker->End(ts, track, irq_category_);
    return;
  }
  ctx_->slice_tracker->Begin(ts, track, irq_category_, storage_->Intern(kActions[vec]),
                             ctx_->args_tracker->NewSet().AddInt("vec", vec));
}

void FtraceDeviceEvents::ParseCpuFrequencyLimits(int64_t ts, proto::Bytes payload) {
  using E = pb::CpuFrequencyLimitsFtraceEvent;
  Flat m(payload);
  uint32_t cpu = m[E::kCpuIdFieldNumber].as_uint32();
  if (cpu >= kMaxCpus) return;
  char max_name[40], min_name[40];
  snprintf(max_name, sizeof max_name, "Cpu %u Max Freq Limit", cpu);
  snprintf(min_name, sizeof min_name, "Cpu %u Min Freq Limit", cpu);
  TrackTracker* tt = ctx_->track_tracker.get();
  tt->PushCounter(ts, m[E::kMaxFreqFieldNumber].as_uint32(),
                  tt->InternCpuCounterTrack(cpu, storage_->Intern(max_name), cpu_max_limit_));
  tt->PushCounter(ts, m[E::kMinFreqFieldNumber].as_uint32(),
                  tt->InternCpuCounterTrack(cpu, storage_->Intern(min_name), cpu_min_limit_));
}

void FtraceDeviceEvents::ParseThermalTemperature(int64_t ts, proto::Bytes payload) {
  using E = pb::ThermalTemperatureFtraceEvent;
  Flat m(payload);
  // One global track per thermal zone (upstream's naming); the value is the
  // new reading, temp_prev is only kept in the raw ftrace_event row.
  std::string_view zone = m[E::kThermalZoneFieldNumber].as_string();
  std::string name(zone);
  name += " Temperature";
  TrackTracker* tt = ctx_->track_tracker.get();
  tt->PushCounter(ts, m[E::kTempFieldNumber].as_int32(),
                  tt->InternGlobalCounterTrack(storage_->Intern(name), thermal_type_, kNullStringId,
                                               TrackDims().Str("thermal_zone", zone)));
}

void FtraceDeviceEvents::ParseKprobe(int64_t ts, uint32_t pid, proto::Bytes payload) {
  using E = pb::KprobeEvent;
  Flat m(payload);
  StringId name = storage_->Intern(m[E::kNameFieldNumber].as_string());
  uint32_t utid = ctx_->process_tracker->GetOrCreateThread(pid);
  uint32_t track = ctx_->track_tracker->InternThreadTrack(utid);
  switch (m[E::kTypeFieldNumber].as_uint32()) {
    case E::KPROBE_TYPE_BEGIN:
      ctx_->slice_tracker->Begin(ts, track, kNullStringId, name);
      return;
    case E::KPROBE_TYPE_END:
      ctx_->slice_tracker->End(ts, track, kNullStringId, name);
      return;
    case E::KPROBE_TYPE_INSTANT:
      ctx_->slice_tracker->Scoped(ts, track, kNullStringId, name, 0);
      return;
    default:
      return;
  }
}

void FtraceDeviceEvents::ParseUfshcdCommand(int64_t ts, proto::Bytes payload) {
  using E = pb::UfshcdCommandFtraceEvent;
  Flat m(payload);
  uint32_t doorbell = m[E::kDoorbellFieldNumber].as_uint32();
  uint32_t phase = m[E::kStrTFieldNumber].as_uint32();
  // Each doorbell bit is a command slot in use. Without a doorbell value the
  // event itself is the only command known in flight (none once completed).
  uint32_t in_flight = doorbell != 0 ? static_cast<uint32_t>(std::popcount(doorbell))
                                     : (phase == kUfsComplete ? 0 : 1);
  TrackTracker* tt = ctx_->track_tracker.get();
  tt->PushCounter(ts, in_flight, tt->InternGlobalCounterTrack(ufs_count_name_, ufs_count_type_));
  if (phase != kUfsSend && phase != kUfsComplete) return;

  uint32_t tag = m[E::kTagFieldNumber].as_uint32();
  char track_name[40];
  snprintf(track_name, sizeof track_name, "io.ufs.command.tag[%03u]", tag);
  uint32_t track = tt->InternGlobalTrack(storage_->Intern(track_name), ufs_tag_type_);
  if (phase == kUfsComplete) {
    ctx_->slice_tracker->End(ts, track);
    return;
  }
  std::string name = ScsiOpcodeName(m[E::kOpcodeFieldNumber].as_uint32());
  if (uint32_t gid = m[E::kGroupIdFieldNumber].as_uint32(); gid != 0) {
    char buf[24];
    snprintf(buf, sizeof buf, " (GID=0x%x)", gid);
    name += buf;
  }
  ctx_->slice_tracker->Begin(ts, track, kNullStringId, storage_->Intern(name));
}

void FtraceDeviceEvents::ParseWakeupSource(int64_t ts, proto::Bytes payload, bool activate) {
  // Both events: name = 1.
  static_assert(+pb::WakeupSourceActivateFtraceEvent::kNameFieldNumber ==
                +pb::WakeupSourceDeactivateFtraceEvent::kNameFieldNumber);
  Flat m(payload);
  std::string source(m[pb::WakeupSourceActivateFtraceEvent::kNameFieldNumber].as_string());
  uint32_t& refs = wakeup_refs_[source];
  // A source held twice is released by its second deactivate: one slice for
  // the whole time it was held.
  if (activate ? refs++ != 0 : (refs == 0 || --refs != 0)) return;
  StringId name = storage_->Intern("Wakelock(" + source + ")");
  uint32_t track = ctx_->track_tracker->InternGlobalTrack(name, wakelock_type_);
  if (activate) {
    ctx_->slice_tracker->Begin(ts, track, kNullStringId, name);
  } else {
    ctx_->slice_tracker->End(ts, track);
  }
}

void FtraceDeviceEvents::ParseNetBytes(int64_t ts, uint32_t cpu, std::string_view dev, uint32_t len,
                                       std::unordered_map<std::string, uint64_t>* totals,
                                       std::string_view suffix, StringId type) {
  uint64_t& total = (*totals)[std::string(dev)];
  total += len;
  std::string name(dev);
  name += suffix;
  TrackTracker* tt = ctx_->track_tracker.get();
  uint32_t row = tt->PushCounter(ts, static_cast<double>(total / 1024),
                                 tt->InternGlobalCounterTrack(storage_->Intern(name), type));
  auto args = ctx_->args_tracker->NewSet().AddUint("cpu", cpu).AddUint("len", len).Commit();
  if (args) storage_->counter.arg_set_id.Set(row, *args);
}

void FtraceDeviceEvents::ParseKfreeSkb(int64_t ts, proto::Bytes payload) {
  using E = pb::KfreeSkbFtraceEvent;
  Flat m(payload);
  uint32_t protocol = m[E::kProtocolFieldNumber].as_uint32();
  // Only IP packets are counted.
  if (protocol != kEthPIp && protocol != kEthPIpv6) return;
  ++kfree_skb_ip_count_;
  TrackTracker* tt = ctx_->track_tracker.get();
  uint32_t row = tt->PushCounter(ts, static_cast<double>(kfree_skb_ip_count_),
                                 tt->InternGlobalCounterTrack(kfree_skb_name_, net_kfree_skb_));
  auto args = ctx_->args_tracker->NewSet()
                  .AddString("protocol", protocol == kEthPIp ? "IP" : "IPV6")
                  .Commit();
  if (args) storage_->counter.arg_set_id.Set(row, *args);
}

void FtraceDeviceEvents::ParseInetSockSetState(int64_t ts, uint32_t pid, proto::Bytes payload) {
  using E = pb::InetSockSetStateFtraceEvent;
  Flat m(payload);
  if (m[E::kProtocolFieldNumber].as_uint32() != kIpProtoTcp) return;
  uint32_t family = m[E::kFamilyFieldNumber].as_uint32();
  if (family != kAfInet && family != kAfInet6) return;
  int32_t new_state = m[E::kNewstateFieldNumber].as_int32();
  int32_t old_state = m[E::kOldstateFieldNumber].as_int32();
  if (new_state < 0 || new_state >= kTcpMaxStates || old_state < 0 || old_state >= kTcpMaxStates)
    return;
  uint64_t skaddr = m[E::kSkaddrFieldNumber].as_uint64();
  auto [it, inserted] = tcp_streams_.try_emplace(skaddr, 0);
  if (inserted) it->second = static_cast<uint32_t>(tcp_streams_.size());
  char buf[96];
  if (new_state == kTcpSynSent) {
    snprintf(buf, sizeof buf, "%s(pid=%u)", kTcpStateNames[new_state], pid);
  } else if (new_state == kTcpEstablished) {
    snprintf(buf, sizeof buf, "%s(sport=%u,dport=%u)", kTcpStateNames[new_state],
             m[E::kSportFieldNumber].as_uint32(), m[E::kDportFieldNumber].as_uint32());
  } else {
    snprintf(buf, sizeof buf, "%s", kTcpStateNames[new_state]);
  }
  char track_name[32];
  snprintf(track_name, sizeof track_name, "TCP stream#%u", it->second);
  uint32_t track =
      ctx_->track_tracker->InternGlobalTrack(storage_->Intern(track_name), net_socket_set_state_);
  // One state at a time: the new state ends the previous one.
  SliceTracker* st = ctx_->slice_tracker.get();
  if (st->GetTopmostOpen(track)) st->End(ts, track);
  st->Begin(ts, track, tcp_state_, storage_->Intern(buf));
}

void FtraceDeviceEvents::ParseTcpRetransmitSkb(int64_t ts, proto::Bytes payload) {
  using E = pb::TcpRetransmitSkbFtraceEvent;
  Flat m(payload);
  char buf[48];
  snprintf(buf, sizeof buf, "sport=%u,dport=%u", m[E::kSportFieldNumber].as_uint32(),
           m[E::kDportFieldNumber].as_uint32());
  uint32_t track =
      ctx_->track_tracker->InternGlobalTrack(tcp_retransmit_name_, net_tcp_retransmit_skb_);
  ctx_->slice_tracker->Scoped(ts, track, tcp_event_, storage_->Intern(buf), 0);
}

}  // namespace fathom
