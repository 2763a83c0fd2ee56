#include "sys_stats_source.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "gen/perfetto_fields.h"
#include "proto_schema.h"
#include "util.h"

namespace fathom::recorder {
namespace {

using SS = pf::SysStats;

// MeminfoCounters value name -> /proc/meminfo key (not mechanically derivable).
constexpr std::pair<const char*, const char*> kMeminfoKeys[] = {
    {"MEMINFO_MEM_TOTAL", "MemTotal"},
    {"MEMINFO_MEM_FREE", "MemFree"},
    {"MEMINFO_MEM_AVAILABLE", "MemAvailable"},
    {"MEMINFO_BUFFERS", "Buffers"},
    {"MEMINFO_CACHED", "Cached"},
    {"MEMINFO_SWAP_CACHED", "SwapCached"},
    {"MEMINFO_ACTIVE", "Active"},
    {"MEMINFO_INACTIVE", "Inactive"},
    {"MEMINFO_ACTIVE_ANON", "Active(anon)"},
    {"MEMINFO_INACTIVE_ANON", "Inactive(anon)"},
    {"MEMINFO_ACTIVE_FILE", "Active(file)"},
    {"MEMINFO_INACTIVE_FILE", "Inactive(file)"},
    {"MEMINFO_UNEVICTABLE", "Unevictable"},
    {"MEMINFO_MLOCKED", "Mlocked"},
    {"MEMINFO_SWAP_TOTAL", "SwapTotal"},
    {"MEMINFO_SWAP_FREE", "SwapFree"},
    {"MEMINFO_DIRTY", "Dirty"},
    {"MEMINFO_WRITEBACK", "Writeback"},
    {"MEMINFO_ANON_PAGES", "AnonPages"},
    {"MEMINFO_MAPPED", "Mapped"},
    {"MEMINFO_SHMEM", "Shmem"},
    {"MEMINFO_SLAB", "Slab"},
    {"MEMINFO_SLAB_RECLAIMABLE", "SReclaimable"},
    {"MEMINFO_SLAB_UNRECLAIMABLE", "SUnreclaim"},
    {"MEMINFO_KERNEL_STACK", "KernelStack"},
    {"MEMINFO_PAGE_TABLES", "PageTables"},
    {"MEMINFO_COMMIT_LIMIT", "CommitLimit"},
    {"MEMINFO_COMMITED_AS", "Committed_AS"},
    {"MEMINFO_VMALLOC_TOTAL", "VmallocTotal"},
    {"MEMINFO_VMALLOC_USED", "VmallocUsed"},
    {"MEMINFO_VMALLOC_CHUNK", "VmallocChunk"},
    {"MEMINFO_CMA_TOTAL", "CmaTotal"},
    {"MEMINFO_CMA_FREE", "CmaFree"},
};

bool Wanted(const std::vector<int32_t>& filter, int32_t v) {
  return filter.empty() || std::find(filter.begin(), filter.end(), v) != filter.end();
}

int OpenProc(const std::string& root, const char* name) {
  return open((root + "/" + name).c_str(), O_RDONLY | O_CLOEXEC);
}

// Calls fn(line) for each line of buf.
template <typename Fn>
void ForEachLine(std::string_view buf, Fn fn) {
  while (!buf.empty()) {
    size_t nl = buf.find('\n');
    fn(buf.substr(0, nl));
    if (nl == std::string_view::npos) break;
    buf.remove_prefix(nl + 1);
  }
}

}  // namespace

SysStatsSource::SysStatsSource(const SysStatsSourceConfig& config, device::TraceWriter* writer,
                               uint32_t sequence_id, std::string proc_root)
    : config_(config), writer_(writer), sequence_id_(sequence_id) {
  long hz = sysconf(_SC_CLK_TCK);
  if (hz > 0) ns_per_tick_ = 1000000000ull / static_cast<uint64_t>(hz);
  if (const device::SchemaMessage* m = device::FindMessage("SysStatsConfig")) {
    const device::SchemaEnum& mem = device::EnumAt(device::FindField(*m, "meminfo_counters")->ref);
    for (auto [enum_name, key] : kMeminfoKeys) {
      int32_t v;
      if (device::FindEnumValue(mem, enum_name, &v) && Wanted(config_.meminfo_counters, v))
        meminfo_keys_.emplace(key, v);
    }
    // VMSTAT_NR_FREE_PAGES <-> "nr_free_pages".
    const device::SchemaEnum& vm = device::EnumAt(device::FindField(*m, "vmstat_counters")->ref);
    for (const device::SchemaEnumValue& v : device::Values(vm)) {
      std::string name = v.name;
      if (name.rfind("VMSTAT_", 0) != 0 || !Wanted(config_.vmstat_counters, v.value)) continue;
      name = name.substr(7);
      for (char& c : name) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
      vmstat_keys_.emplace(name, v.value);
    }
  }
  stat_enabled_.assign(8, config_.stat_counters.empty());
  for (int32_t v : config_.stat_counters)
    if (v >= 0 && v < 8) stat_enabled_[v] = true;
  if (config_.meminfo_period_ms) meminfo_fd_ = OpenProc(proc_root, "meminfo");
  if (config_.vmstat_period_ms) vmstat_fd_ = OpenProc(proc_root, "vmstat");
  if (config_.stat_period_ms) stat_fd_ = OpenProc(proc_root, "stat");
}

SysStatsSource::~SysStatsSource() {
  for (int fd : {meminfo_fd_, vmstat_fd_, stat_fd_})
    if (fd >= 0) close(fd);
}

bool SysStatsSource::MaybePoll(int64_t now) {
  bool mem = meminfo_fd_ >= 0 && now >= next_meminfo_;
  bool vm = vmstat_fd_ >= 0 && now >= next_vmstat_;
  bool st = stat_fd_ >= 0 && now >= next_stat_;
  if (!mem && !vm && !st) return false;
  packet_.Clear();
  packet_.Varint(pf::TracePacket::kTimestampFieldNumber, static_cast<uint64_t>(BootNs()));
  packet_.Varint(pf::TracePacket::kTrustedPacketSequenceIdFieldNumber, sequence_id_);
  size_t token = packet_.BeginNested(pf::TracePacket::kSysStatsFieldNumber);
  if (mem) {
    next_meminfo_ = now + int64_t{config_.meminfo_period_ms} * 1000000;
    ReadMeminfo();
  }
  if (vm) {
    next_vmstat_ = now + int64_t{config_.vmstat_period_ms} * 1000000;
    ReadVmstat();
  }
  if (st) {
    next_stat_ = now + int64_t{config_.stat_period_ms} * 1000000;
    ReadStat();
  }
  packet_.Varint(SS::kCollectionEndTimestampFieldNumber, static_cast<uint64_t>(BootNs()));
  packet_.EndNested(token);
  writer_->AppendPacket(packet_.data());
  return true;
}

void SysStatsSource::ReadMeminfo() {
  if (!PreadAll(meminfo_fd_, &buf_)) return;
  ForEachLine(buf_, [&](std::string_view line) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return;
    auto it = meminfo_keys_.find(line.substr(0, colon));
    if (it == meminfo_keys_.end()) return;
    const char* p = line.data() + colon + 1;
    uint64_t kb = ParseU64(&p, line.data() + line.size());
    size_t m = packet_.BeginNested(SS::kMeminfoFieldNumber);
    packet_.Varint(SS::MeminfoValue::kKeyFieldNumber, static_cast<uint64_t>(it->second));
    packet_.Varint(SS::MeminfoValue::kValueFieldNumber, kb);
    packet_.EndNested(m);
  });
}

void SysStatsSource::ReadVmstat() {
  if (!PreadAll(vmstat_fd_, &buf_)) return;
  ForEachLine(buf_, [&](std::string_view line) {
    size_t sp = line.find(' ');
    if (sp == std::string_view::npos) return;
    auto it = vmstat_keys_.find(line.substr(0, sp));
    if (it == vmstat_keys_.end()) return;
    const char* p = line.data() + sp;
    uint64_t v = ParseU64(&p, line.data() + line.size());
    size_t m = packet_.BeginNested(SS::kVmstatFieldNumber);
    packet_.Varint(SS::VmstatValue::kKeyFieldNumber, static_cast<uint64_t>(it->second));
    packet_.Varint(SS::VmstatValue::kValueFieldNumber, v);
    packet_.EndNested(m);
  });
}

void SysStatsSource::ReadStat() {
  // StatCounters: 1 CPU_TIMES, 2 IRQ_COUNTS, 3 SOFTIRQ_COUNTS, 4 FORK_COUNT (enum values
  // are part of the wire format and stable).
  if (!PreadAll(stat_fd_, &buf_)) return;
  ForEachLine(buf_, [&](std::string_view line) {
    const char* p = line.data();
    const char* end = p + line.size();
    if (line.rfind("cpu", 0) == 0 && line.size() > 3 &&
        isdigit(static_cast<unsigned char>(line[3]))) {
      if (!stat_enabled_[1]) return;
      p += 3;
      uint64_t cpu = ParseU64(&p, end);
      uint64_t t[8];
      for (uint64_t& v : t) v = ParseU64(&p, end);
      using CT = SS::CpuTimes;
      size_t m = packet_.BeginNested(SS::kCpuStatFieldNumber);
      packet_.Varint(CT::kCpuIdFieldNumber, cpu);
      packet_.Varint(CT::kUserNsFieldNumber, t[0] * ns_per_tick_);
      packet_.Varint(CT::kUserNiceNsFieldNumber, t[1] * ns_per_tick_);
      packet_.Varint(CT::kSystemModeNsFieldNumber, t[2] * ns_per_tick_);
      packet_.Varint(CT::kIdleNsFieldNumber, t[3] * ns_per_tick_);
      packet_.Varint(CT::kIoWaitNsFieldNumber, t[4] * ns_per_tick_);
      packet_.Varint(CT::kIrqNsFieldNumber, t[5] * ns_per_tick_);
      packet_.Varint(CT::kSoftirqNsFieldNumber, t[6] * ns_per_tick_);
      packet_.Varint(CT::kStealNsFieldNumber, t[7] * ns_per_tick_);
      packet_.EndNested(m);
    } else if (line.rfind("intr ", 0) == 0 || line.rfind("softirq ", 0) == 0) {
      bool irq = line[0] == 'i';
      if (!stat_enabled_[irq ? 2 : 3]) return;
      p += irq ? 5 : 8;
      packet_.Varint(irq ? SS::kNumIrqTotalFieldNumber : SS::kNumSoftirqTotalFieldNumber,
                     ParseU64(&p, end));
      for (int32_t n = 0; p < end; n++) {
        const char* before = p;
        uint64_t count = ParseU64(&p, end);
        if (p == before) break;  // not a number: stop rather than spin
        if (count == 0) continue;
        size_t m = packet_.BeginNested(irq ? SS::kNumIrqFieldNumber : SS::kNumSoftirqFieldNumber);
        packet_.Int(SS::InterruptCount::kIrqFieldNumber, n);
        packet_.Varint(SS::InterruptCount::kCountFieldNumber, count);
        packet_.EndNested(m);
      }
    } else if (line.rfind("processes ", 0) == 0) {
      if (!stat_enabled_[4]) return;
      p += 10;
      packet_.Varint(SS::kNumForksFieldNumber, ParseU64(&p, end));
    }
  });
}

}  // namespace fathom::recorder
