// Non-scheduling ftrace events: atrace markers written through ftrace print
// (B/E/C/S/F/I, with and without the tgid), cpu frequency/idle/limits,
// rss_stat and thermal readings.
#include <string>

#include "tests/conformance/difftester/gen/ftrace_writer.h"

namespace fathom::difftester {
namespace {

const char* const kSliceNames[] = {"Choreographer#doFrame",
                                   "draw",
                                   "inflate",
                                   "binder transaction",
                                   "Lock contention on a monitor lock",
                                   "GC: Wait For Completion",
                                   "name with spaces | and pipe"};
const char* const kCounterNames[] = {"aq:pending", "fps", "VSYNC-sf", "mem.heap"};
const char* const kAsyncNames[] = {"launching: com.example", "animation", "Binder reply"};
const uint32_t kFreqs[] = {300000, 576000, 1017600, 1497600, 2208000};

std::string AtraceBuf(GenContext* ctx, SimThread* t) {
  const std::string tgid = std::to_string(t->tgid);
  const std::string nl = ctx->Chance(80) ? "\n" : "";
  const int r = static_cast<int>(ctx->Rand(100));
  if (r < 30 && t->atrace_depth < 5) {
    ++t->atrace_depth;
    return "B|" + tgid + "|" + ctx->Pick(kSliceNames) + nl;
  }
  if (r < 60) {
    if (t->atrace_depth > 0) --t->atrace_depth;  // an unmatched E is also valid input
    return (ctx->Chance(50) ? "E|" + tgid : std::string("E")) + nl;
  }
  if (r < 75) {
    return "C|" + tgid + "|" + ctx->Pick(kCounterNames) + "|" +
           std::to_string(static_cast<int64_t>(ctx->Rand(200)) - 20) + nl;
  }
  if (r < 92) {
    const char* kind = ctx->Chance(55) ? "S|" : "F|";
    return kind + tgid + "|" + ctx->Pick(kAsyncNames) + "|" + std::to_string(ctx->Rand(4)) + nl;
  }
  return "I|" + tgid + "|" + ctx->Pick(kSliceNames) + nl;
}

}  // namespace

void MaybeAtracePrint(GenContext* ctx, FtraceWriter* w, int cpu, int64_t ts) {
  SimThread* t = w->running(cpu);
  if (!t || t->kthread) return;
  auto* pr = w->NewEvent(cpu, ts, t->tid)->mutable_print();
  pr->set_ip(0xffffff8008a3c2d0ull);
  pr->set_buf(AtraceBuf(ctx, t));
}

void MaybeCpuCounters(GenContext* ctx, FtraceWriter* w, int cpu, int64_t ts) {
  const int32_t pid = w->CurrentPid(cpu);
  const int r = static_cast<int>(ctx->Rand(100));
  if (r < 45) {
    auto* cf = w->NewEvent(cpu, ts, pid)->mutable_cpu_frequency();
    cf->set_state(ctx->Pick(kFreqs));
    // Frequency changes are often reported for another cpu of the cluster.
    cf->set_cpu_id(static_cast<uint32_t>(ctx->Rand(static_cast<uint64_t>(ctx->features.cpus))));
  } else if (r < 80) {
    auto* ci = w->NewEvent(cpu, ts, pid)->mutable_cpu_idle();
    // 4294967295 (-1 as u32) is the kernel's "exit idle".
    ci->set_state(ctx->Chance(50) ? 4294967295u : static_cast<uint32_t>(ctx->Rand(3)));
    ci->set_cpu_id(static_cast<uint32_t>(cpu));
  } else if (r < 92) {
    auto* fl = w->NewEvent(cpu, ts, pid)->mutable_cpu_frequency_limits();
    fl->set_min_freq(kFreqs[ctx->Rand(2)]);
    fl->set_max_freq(kFreqs[2 + ctx->Rand(3)]);
    fl->set_cpu_id(static_cast<uint32_t>(cpu));
  } else {
    auto* th = w->NewEvent(cpu, ts, pid)->mutable_thermal_temperature();
    th->set_id(static_cast<int32_t>(ctx->Rand(2)));
    th->set_temp(static_cast<int32_t>(30'000 + ctx->Rand(20'000)));
    th->set_temp_prev(static_cast<int32_t>(30'000 + ctx->Rand(20'000)));
    th->set_thermal_zone(ctx->Chance(50) ? "cpu-0-0" : "battery");
  }
}

// rss_stat: member 0..4 (file, anon, swap, shmem, unreclaimable), for the
// current task (curr = 1) or another mm (curr = 0, identified by mm_id).
void MaybeRssStat(GenContext* ctx, FtraceWriter* w, int cpu, int64_t ts) {
  SimThread* t = w->running(cpu);
  auto* rs = w->NewEvent(cpu, ts, t ? t->tid : 0)->mutable_rss_stat();
  rs->set_member(static_cast<int32_t>(ctx->Rand(5)));
  rs->set_size(static_cast<int64_t>(ctx->Rand(1u << 30)));
  if (ctx->Chance(70)) {
    const bool current = t != nullptr && ctx->Chance(70);
    rs->set_curr(current ? 1 : 0);
    rs->set_mm_id(current ? static_cast<uint32_t>(t->tgid) * 7919u
                          : static_cast<uint32_t>(ctx->Rand(5)) + 1);
  }
}

}  // namespace fathom::difftester
