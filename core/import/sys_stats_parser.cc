#include "core/import/sys_stats_parser.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <optional>

#include "core/import/args_tracker.h"
#include "core/import/track_tracker.h"
#include "perfetto/common/sys_stats_counters.pb.h"
#include "perfetto/trace/sys_stats/sys_stats.pb.h"
#include "perfetto/trace/system_info.pb.h"

namespace fathom {

namespace pp = perfetto::protos;

namespace {

// /proc/meminfo key of each MeminfoCounters value (the enum names are not
// mechanically convertible: "Active(anon)", "SReclaimable", ...).
constexpr std::pair<pp::MeminfoCounters, const char*> kMeminfoKeys[] = {
    {pp::MEMINFO_MEM_TOTAL, "MemTotal"},
    {pp::MEMINFO_MEM_FREE, "MemFree"},
    {pp::MEMINFO_MEM_AVAILABLE, "MemAvailable"},
    {pp::MEMINFO_BUFFERS, "Buffers"},
    {pp::MEMINFO_CACHED, "Cached"},
    {pp::MEMINFO_SWAP_CACHED, "SwapCached"},
    {pp::MEMINFO_ACTIVE, "Active"},
    {pp::MEMINFO_INACTIVE, "Inactive"},
    {pp::MEMINFO_ACTIVE_ANON, "Active(anon)"},
    {pp::MEMINFO_INACTIVE_ANON, "Inactive(anon)"},
    {pp::MEMINFO_ACTIVE_FILE, "Active(file)"},
    {pp::MEMINFO_INACTIVE_FILE, "Inactive(file)"},
    {pp::MEMINFO_UNEVICTABLE, "Unevictable"},
    {pp::MEMINFO_MLOCKED, "Mlocked"},
    {pp::MEMINFO_SWAP_TOTAL, "SwapTotal"},
    {pp::MEMINFO_SWAP_FREE, "SwapFree"},
    {pp::MEMINFO_DIRTY, "Dirty"},
    {pp::MEMINFO_WRITEBACK, "Writeback"},
    {pp::MEMINFO_ANON_PAGES, "AnonPages"},
    {pp::MEMINFO_MAPPED, "Mapped"},
    {pp::MEMINFO_SHMEM, "Shmem"},
    {pp::MEMINFO_SLAB, "Slab"},
    {pp::MEMINFO_SLAB_RECLAIMABLE, "SReclaimable"},
    {pp::MEMINFO_SLAB_UNRECLAIMABLE, "SUnreclaim"},
    {pp::MEMINFO_KERNEL_STACK, "KernelStack"},
    {pp::MEMINFO_PAGE_TABLES, "PageTables"},
    {pp::MEMINFO_COMMIT_LIMIT, "CommitLimit"},
    {pp::MEMINFO_COMMITED_AS, "Committed_AS"},
    {pp::MEMINFO_VMALLOC_TOTAL, "VmallocTotal"},
    {pp::MEMINFO_VMALLOC_USED, "VmallocUsed"},
    {pp::MEMINFO_VMALLOC_CHUNK, "VmallocChunk"},
    {pp::MEMINFO_CMA_TOTAL, "CmaTotal"},
    {pp::MEMINFO_CMA_FREE, "CmaFree"},
};

// The small key/value sub-messages (their field numbers are all below 4).
using Flat = proto::FlatMessage<4>;

const char* PsiResourceKey(int64_t resource) {
  using R = pp::SysStats::PsiSample;
  switch (resource) {
    case R::PSI_RESOURCE_CPU_SOME:
      return "psi.cpu.some";
    case R::PSI_RESOURCE_CPU_FULL:
      return "psi.cpu.full";
    case R::PSI_RESOURCE_IO_SOME:
      return "psi.io.some";
    case R::PSI_RESOURCE_IO_FULL:
      return "psi.io.full";
    case R::PSI_RESOURCE_MEMORY_SOME:
      return "psi.mem.some";
    case R::PSI_RESOURCE_MEMORY_FULL:
      return "psi.mem.full";
    default:
      return nullptr;
  }
}

// Calls fn(value) for each element of a repeated varint field occurrence,
// packed or not.
template <typename Fn>
void ForEachVarint(const proto::Field& f, Fn fn) {
  if (f.type == proto::WireType::kLengthDelimited) {
    proto::PackedVarints pv(f.bytes);
    for (uint64_t v; pv.Next(&v);) fn(v);
  } else {
    fn(f.int_value);
  }
}

}  // namespace

SysStatsParser::SysStatsParser(TraceContext* ctx) : ctx_(ctx) {
  for (const auto& [key, name] : kMeminfoKeys) {
    if (static_cast<size_t>(key) >= meminfo_names_.size()) meminfo_names_.resize(key + 1);
    meminfo_names_[key] = name;
  }
  // /proc/vmstat keys are the enum names, lower-cased, without the prefix.
  const auto* desc = pp::VmstatCounters_descriptor();
  for (int i = 0; i < desc->value_count(); ++i) {
    const auto* v = desc->value(i);
    if (v->number() <= 0) continue;
    std::string name = v->name().substr(std::string("VMSTAT_").size());
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (static_cast<size_t>(v->number()) >= vmstat_names_.size())
      vmstat_names_.resize(v->number() + 1);
    vmstat_names_[v->number()] = name;
  }
}

void SysStatsParser::PushGlobal(int64_t ts, std::string_view name, std::string_view type,
                                double value, const TrackDims& dims) {
  TraceStorage* s = ctx_->storage.get();
  uint32_t track = ctx_->track_tracker->InternGlobalCounterTrack(s->Intern(name), s->Intern(type),
                                                                 kNullStringId, dims);
  ctx_->track_tracker->PushCounter(ts, value, track);
}

void SysStatsParser::PushCpu(int64_t ts, uint32_t cpu, std::string_view name, std::string_view type,
                             double value, const TrackDims& dims) {
  TraceStorage* s = ctx_->storage.get();
  uint32_t track = ctx_->track_tracker->InternCpuCounterTrack(cpu, s->Intern(name), s->Intern(type),
                                                              ctx_->packet_machine_id, dims);
  ctx_->track_tracker->PushCounter(ts, value, track);
}

void SysStatsParser::ParseSysStats(int64_t ts, proto::Bytes payload) {
  using SS = pp::SysStats;
  // Upstream reads a packet's fields kind by kind in this order (not in wire
  // order), which decides the order its tracks and their dimension sets are
  // created in.
  static constexpr uint32_t kOrder[] = {
      SS::kMeminfoFieldNumber,         SS::kDevfreqFieldNumber,   SS::kCpufreqKhzFieldNumber,
      SS::kVmstatFieldNumber,          SS::kCpuStatFieldNumber,   SS::kNumIrqFieldNumber,
      SS::kNumSoftirqFieldNumber,      SS::kNumForksFieldNumber,  SS::kNumIrqTotalFieldNumber,
      SS::kNumSoftirqTotalFieldNumber, SS::kPsiFieldNumber,       SS::kThermalZoneFieldNumber,
      SS::kCpuidleStateFieldNumber,    SS::kGpufreqMhzFieldNumber};
  std::vector<proto::Field> fields;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) fields.push_back(f);
  uint32_t cpufreq_cpu = 0;
  for (uint32_t id : kOrder)
    for (const proto::Field& f : fields)
      if (f.id == id) ParseSysStatsField(ts, f, &cpufreq_cpu);
}

void SysStatsParser::ParseSysStatsField(int64_t ts, const proto::Field& f, uint32_t* cpufreq_cpu) {
  using SS = pp::SysStats;
  Stats& stats = ctx_->storage->stats;
  switch (f.id) {
    case SS::kMeminfoFieldNumber:
    case SS::kVmstatFieldNumber: {
      // MeminfoValue and VmstatValue share their layout (key = 1, value = 2).
      Flat kv(f.bytes);
      const uint64_t key = kv[SS::MeminfoValue::kKeyFieldNumber].as_uint64();
      const uint64_t value = kv[SS::MeminfoValue::kValueFieldNumber].as_uint64();
      bool meminfo = f.id == SS::kMeminfoFieldNumber;
      const auto& names = meminfo ? meminfo_names_ : vmstat_names_;
      if (key >= names.size() || names[key].empty()) {
        stats.Increment(meminfo ? Stat::kMeminfoUnknownKeys : Stat::kVmstatUnknownKeys);
        break;
      }
      // meminfo is in kB; the trace processor keeps bytes.
      PushGlobal(ts, names[key], meminfo ? "meminfo" : "vmstat",
                 meminfo ? static_cast<double>(value) * 1024 : static_cast<double>(value),
                 TrackDims().Str(meminfo ? "meminfo_key" : "vmstat_key", names[key]));
      break;
    }
    case SS::kCpuStatFieldNumber: {
      using CT = SS::CpuTimes;
      // As upstream, a cpu_stat sample sets all eight times of its cpu (a
      // field the kernel did not report is 0), in this order.
      static constexpr std::pair<uint32_t, const char*> kTimes[] = {
          {CT::kUserNsFieldNumber, "cpu.times.user_ns"},
          {CT::kUserNiceNsFieldNumber, "cpu.times.user_nice_ns"},
          {CT::kSystemModeNsFieldNumber, "cpu.times.system_mode_ns"},
          {CT::kIdleNsFieldNumber, "cpu.times.idle_ns"},
          {CT::kIoWaitNsFieldNumber, "cpu.times.io_wait_ns"},
          {CT::kIrqNsFieldNumber, "cpu.times.irq_ns"},
          {CT::kSoftirqNsFieldNumber, "cpu.times.softirq_ns"},
          {CT::kStealNsFieldNumber, "cpu.times.steal_ns"},
      };
      std::optional<uint32_t> cpu;
      uint64_t values[std::size(kTimes)] = {};
      proto::Decoder ct(f.bytes);
      for (proto::Field g = ct.Next(); g.valid(); g = ct.Next()) {
        if (g.id == CT::kCpuIdFieldNumber) cpu = g.as_uint32();
        for (size_t i = 0; i < std::size(kTimes); ++i)
          if (g.id == kTimes[i].first) values[i] = g.int_value;
      }
      if (!cpu) {
        stats.Increment(Stat::kInvalidCpuTimes);
        break;
      }
      for (size_t i = 0; i < std::size(kTimes); ++i)
        PushCpu(ts, *cpu, kTimes[i].second, "cpustat", static_cast<double>(values[i]),
                TrackDims().Str("cpustat_key",
                                kTimes[i].second + std::string_view("cpu.times.").size()));
      break;
    }
    case SS::kNumForksFieldNumber:
      PushGlobal(ts, "num_forks", "num_forks", static_cast<double>(f.int_value));
      break;
    case SS::kNumIrqTotalFieldNumber:
      PushGlobal(ts, "num_irq_total", "num_irq_total", static_cast<double>(f.int_value));
      break;
    case SS::kNumSoftirqTotalFieldNumber:
      PushGlobal(ts, "num_softirq_total", "num_softirq_total", static_cast<double>(f.int_value));
      break;
    case SS::kNumIrqFieldNumber:
    case SS::kNumSoftirqFieldNumber: {
      Flat ic(f.bytes);
      const int64_t irq = ic[SS::InterruptCount::kIrqFieldNumber].as_int32();
      const uint64_t count = ic[SS::InterruptCount::kCountFieldNumber].as_uint64();
      bool soft = f.id == SS::kNumSoftirqFieldNumber;
      std::string name =
          std::string(soft ? "num_softirq" : "num_irq") + " (id: " + std::to_string(irq) + ")";
      PushGlobal(ts, name, soft ? "num_softirq" : "num_irq", static_cast<double>(count),
                 TrackDims().Int("irq", irq));
      break;
    }
    case SS::kDevfreqFieldNumber: {
      Flat dv(f.bytes);
      const std::string_view key = dv[SS::DevfreqValue::kKeyFieldNumber].as_string();
      const uint64_t value = dv[SS::DevfreqValue::kValueFieldNumber].as_uint64();
      // The same track as the clock_set_rate ftrace event's.
      PushGlobal(ts, std::string(key) + " Frequency", "clock_frequency", static_cast<double>(value),
                 TrackDims().Str("linux_device", key));
      break;
    }
    case SS::kCpufreqKhzFieldNumber:
      ForEachVarint(f, [&](uint64_t v) {
        PushCpu(ts, (*cpufreq_cpu)++, "cpufreq", "cpu_frequency", static_cast<double>(v));
      });
      break;
    case SS::kGpufreqMhzFieldNumber:
      ForEachVarint(f, [&](uint64_t v) {
        PushGlobal(ts, "gpufreq", "gpu_frequency", static_cast<double>(v),
                   TrackDims().Int("ugpu", 0).Int("gpu", 0));
      });
      break;
    case SS::kPsiFieldNumber: {
      Flat ps(f.bytes);
      const int64_t resource = ps[SS::PsiSample::kResourceFieldNumber].as_int64();
      const uint64_t total = ps[SS::PsiSample::kTotalNsFieldNumber].as_uint64();
      if (const char* key = PsiResourceKey(resource)) {
        PushGlobal(ts, key, "psi", static_cast<double>(total),
                   TrackDims().Str("psi_resource", key + std::string_view("psi.").size()));
      } else {
        stats.Increment(Stat::kPsiUnknownResource);
      }
      break;
    }
    case SS::kThermalZoneFieldNumber: {
      Flat tz(f.bytes);
      const std::string_view type = tz[SS::ThermalZone::kTypeFieldNumber].as_string();
      const uint64_t temp = tz[SS::ThermalZone::kTempFieldNumber].as_uint64();
      PushGlobal(ts, type, "thermal_temperature_sys", static_cast<double>(temp),
                 TrackDims().Str("thermal_zone", type));
      break;
    }
    case SS::kCpuidleStateFieldNumber: {
      uint32_t cpu = 0;
      std::vector<std::pair<std::string_view, uint64_t>> entries;
      proto::Decoder cs(f.bytes);
      for (proto::Field g = cs.Next(); g.valid(); g = cs.Next()) {
        if (g.id == SS::CpuIdleState::kCpuIdFieldNumber) cpu = g.as_uint32();
        if (g.id != SS::CpuIdleState::kCpuidleStateEntryFieldNumber) continue;
        std::string_view state;
        uint64_t dur = 0;
        proto::Decoder e(g.bytes);
        for (proto::Field h = e.Next(); h.valid(); h = e.Next()) {
          if (h.id == SS::CpuIdleStateEntry::kStateFieldNumber) state = h.as_string();
          if (h.id == SS::CpuIdleStateEntry::kDurationUsFieldNumber) dur = h.as_uint64();
        }
        entries.emplace_back(state, dur);
      }
      TraceStorage* s = ctx_->storage.get();
      for (const auto& [state, dur] : entries) {
        std::string name = "cpuidle" + std::to_string(cpu) + "." + std::string(state);
        // Its state is a dimension, which linux.cpu.idle_time_in_state
        // reads (as upstream's).
        uint32_t track = ctx_->track_tracker->InternCpuCounterTrack(
            cpu, s->Intern(name), s->Intern("cpu_idle_state"), ctx_->packet_machine_id,
            TrackDims().Str("state", state));
        ctx_->track_tracker->PushCounter(ts, static_cast<double>(dur), track);
      }
      break;
    }
  }
}

void SysStatsParser::ParseCpuInfo(proto::Bytes payload) {
  using CI = pp::CpuInfo;
  struct Cpu {
    uint32_t cpu;
    std::string_view processor;
    std::vector<uint32_t> freqs;
    std::optional<uint32_t> capacity;
    proto::Bytes arm_identifier;
    bool has_arm_identifier = false;
    uint64_t features = 0;
  };
  std::vector<Cpu> cpus;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id != CI::kCpusFieldNumber) continue;
    Cpu c{static_cast<uint32_t>(cpus.size()), {}, {}, std::nullopt, {}, false, 0};
    proto::Decoder cd(f.bytes);
    for (proto::Field g = cd.Next(); g.valid(); g = cd.Next()) {
      if (g.id == CI::Cpu::kProcessorFieldNumber) c.processor = g.as_string();
      if (g.id == CI::Cpu::kCapacityFieldNumber) c.capacity = g.as_uint32();
      if (g.id == CI::Cpu::kFeaturesFieldNumber) c.features = g.as_uint64();
      if (g.id == CI::Cpu::kArmIdentifierFieldNumber) {
        c.arm_identifier = g.bytes;
        c.has_arm_identifier = true;
      }
      if (g.id == CI::Cpu::kFrequenciesFieldNumber)
        ForEachVarint(g, [&](uint64_t v) { c.freqs.push_back(static_cast<uint32_t>(v)); });
    }
    cpus.push_back(std::move(c));
  }
  if (cpus.empty()) {
    ctx_->storage->stats.Increment(Stat::kCpuInfoEmpty);
    return;
  }

  // Clusters: CPUs of equal capacity (ARM's own heterogeneity measure) share
  // a cluster; without capacities, CPUs of equal maximum frequency do.
  std::vector<uint32_t> cluster(cpus.size(), 0);
  bool all_capacity =
      std::all_of(cpus.begin(), cpus.end(), [](const Cpu& c) { return c.capacity; });
  bool all_freqs =
      std::all_of(cpus.begin(), cpus.end(), [](const Cpu& c) { return !c.freqs.empty(); });
  if (all_capacity || all_freqs) {
    std::vector<std::pair<uint32_t, uint32_t>> key_cpu;  // (capacity or max freq, cpu)
    for (const Cpu& c : cpus) {
      uint32_t key = all_capacity ? *c.capacity : *std::max_element(c.freqs.begin(), c.freqs.end());
      key_cpu.emplace_back(key, c.cpu);
    }
    std::stable_sort(key_cpu.begin(), key_cpu.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    uint32_t id = 0;
    for (size_t i = 0; i < key_cpu.size(); ++i) {
      if (i > 0 && key_cpu[i].first > key_cpu[i - 1].first) ++id;
      cluster[key_cpu[i].second] = id;
    }
  }

  TraceStorage* s = ctx_->storage.get();
  for (const Cpu& c : cpus) {
    StringId proc = s->Intern(c.processor);
    uint32_t row = s->cpu.Ensure(c.cpu);
    s->cpu.cluster_id.Set(row, cluster[c.cpu]);
    s->cpu.processor.Set(row, proc);
    if (c.capacity) s->cpu.capacity.Set(row, *c.capacity);
    for (uint32_t freq : c.freqs) s->cpu_freq.Insert(c.cpu, freq);
    auto args = ctx_->args_tracker->NewSet();
    if (c.has_arm_identifier) AddArmIdentifierArgs(c.arm_identifier, &args);
    if (c.features) AddCpuFeatureArgs(c.features, &args);
    if (auto set = args.Commit()) s->cpu.arg_set_id.Set(row, *set);
  }
}

// The MIDR fields of an ARM CPU, each as an arm_cpu_* arg (0 when left out).
void SysStatsParser::AddArmIdentifierArgs(proto::Bytes id, ArgsTracker::Builder* args) {
  using Arm = pp::CpuInfo::ArmCpuIdentifier;
  uint32_t v[Arm::kRevisionFieldNumber + 1] = {};
  proto::Decoder d(id);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next())
    if (f.id < std::size(v)) v[f.id] = f.as_uint32();
  args->AddInt("arm_cpu_implementer", v[Arm::kImplementerFieldNumber]);
  args->AddInt("arm_cpu_architecture", v[Arm::kArchitectureFieldNumber]);
  args->AddInt("arm_cpu_variant", v[Arm::kVariantFieldNumber]);
  args->AddInt("arm_cpu_part", v[Arm::kPartFieldNumber]);
  args->AddInt("arm_cpu_revision", v[Arm::kRevisionFieldNumber]);
}

// CpuInfo.Cpu.features: a bitmap of which only MTE (bit 0) and MTE3 (bit 1)
// have names. The whole bitmap is kept as cpu_features.raw_bitmap so bits
// without a name are not lost; a CPU with such bits is counted.
void SysStatsParser::AddCpuFeatureArgs(uint64_t features, ArgsTracker::Builder* args) {
  static constexpr std::pair<uint64_t, const char*> kKnown[] = {{1u << 0, "cpu_features.mte"},
                                                                {1u << 1, "cpu_features.mte3"}};
  uint64_t known = 0;
  for (const auto& [bit, name] : kKnown) {
    known |= bit;
    if (features & bit) args->AddInt(name, 1);
  }
  args->AddInt("cpu_features.raw_bitmap", static_cast<int64_t>(features));
  if (features & ~known) ctx_->storage->stats.Increment(Stat::kCpuInfoUnknownCpuFeatures);
}

}  // namespace fathom
