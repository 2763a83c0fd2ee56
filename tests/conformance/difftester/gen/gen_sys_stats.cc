// SysStats samples: meminfo, vmstat, per-cpu times, fork count, cpufreq,
// thermal zones and cpuidle residency, each block present or not.
#include "tests/conformance/difftester/gen/generators.h"

namespace fathom::difftester {
namespace {

using perfetto::protos::SysStats;

void AddMemory(GenContext* ctx, SysStats* ss) {
  const perfetto::protos::MeminfoCounters keys[] = {
      perfetto::protos::MEMINFO_MEM_TOTAL, perfetto::protos::MEMINFO_MEM_FREE,
      perfetto::protos::MEMINFO_CACHED, perfetto::protos::MEMINFO_SWAP_FREE,
      perfetto::protos::MEMINFO_SHMEM};
  for (auto k : keys) {
    if (ctx->Chance(20)) continue;
    auto* m = ss->add_meminfo();
    m->set_key(k);
    m->set_value(ctx->Rand(8'000'000));
  }
  const perfetto::protos::VmstatCounters vm[] = {perfetto::protos::VMSTAT_NR_FREE_PAGES,
                                                 perfetto::protos::VMSTAT_NR_DIRTY,
                                                 perfetto::protos::VMSTAT_PGFAULT};
  for (auto k : vm) {
    if (ctx->Chance(30)) continue;
    auto* v = ss->add_vmstat();
    v->set_key(k);
    v->set_value(ctx->Rand(1'000'000));
  }
}

void AddCpu(GenContext* ctx, SysStats* ss, int64_t ts) {
  for (int cpu = 0; cpu < ctx->features.cpus; ++cpu) {
    auto* c = ss->add_cpu_stat();
    c->set_cpu_id(static_cast<uint32_t>(cpu));
    c->set_user_ns(static_cast<uint64_t>(ts) / 3);
    if (ctx->Chance(70)) c->set_system_mode_ns(static_cast<uint64_t>(ts) / 7);
    if (ctx->Chance(70)) c->set_idle_ns(static_cast<uint64_t>(ts) / 2);
    if (ctx->Chance(30)) c->set_io_wait_ns(ctx->Rand(1'000'000));
  }
  if (ctx->Chance(50)) ss->set_num_forks(1000 + ctx->Rand(100));
  if (ctx->Chance(40))
    for (int cpu = 0; cpu < ctx->features.cpus; ++cpu)
      ss->add_cpufreq_khz(static_cast<uint32_t>(300000 + ctx->Rand(2'000'000)));
}

void AddThermalAndIdle(GenContext* ctx, SysStats* ss) {
  if (ctx->Chance(40)) {
    auto* tz = ss->add_thermal_zone();
    tz->set_name("thermal_zone0");
    tz->set_temp(30 + ctx->Rand(40));
    tz->set_type(ctx->Chance(50) ? "cpu-thermal" : "skin");
  }
  if (ctx->Chance(30)) {
    auto* ci = ss->add_cpuidle_state();
    ci->set_cpu_id(0);
    auto* e = ci->add_cpuidle_state_entry();
    e->set_state("C1");
    e->set_duration_us(ctx->Rand(1'000'000));
  }
}

}  // namespace

void EmitSysStats(GenContext* ctx) {
  const int samples = 1 + static_cast<int>(ctx->Rand(4));
  const int64_t span = ctx->end_ts - ctx->start_ts;
  for (int i = 0; i < samples; ++i) {
    const int64_t ts = ctx->start_ts + span * i / samples + ctx->RandRange(0, 1000);
    SysStats* ss = ctx->Emit(ts, GenContext::kSeqSysStats)->mutable_sys_stats();
    AddMemory(ctx, ss);
    AddCpu(ctx, ss, ts);
    AddThermalAndIdle(ctx, ss);
    if (ctx->Chance(30)) ss->set_collection_end_timestamp(static_cast<uint64_t>(ts + 5'000));
  }
}

}  // namespace fathom::difftester
