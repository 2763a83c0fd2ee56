#include "tests/conformance/difftester/gen/trace_generator.h"

#include <random>
#include <sstream>

#include "tests/conformance/difftester/gen/generators.h"

namespace fathom::difftester {
namespace {

// Stream ids for GenContext::Reseed, one per family.
enum Family : uint64_t {
  kWorld = 1,
  kProcess,
  kFtrace,
  kTrackEvent,
  kSysStats,
  kLogs,
  kHeapProfile,
  kHeapGraph,
  kClocks,
  kDelivery,
  kTimes
};

void AppendPacket(const TracePacket& p, std::string* out) {
  std::string body = p.SerializeAsString();
  out->push_back(0x0A);  // Trace.packet, length-delimited
  uint64_t len = body.size();
  do {
    uint8_t b = len & 0x7f;
    len >>= 7;
    out->push_back(static_cast<char>(len ? (b | 0x80) : b));
  } while (len);
  out->append(body);
}

}  // namespace

std::vector<std::string> FeatureNames() {
  return {"sched",         "compact_sched", "task_lifecycle", "process_tree",
          "process_stats", "atrace",        "track_event",    "cpu_counters",
          "rss_stat",      "sys_stats",     "android_logs",   "heap_profile",
          "heap_graph",    "clocks",        "reorder",        "data_loss"};
}

bool* FeatureByName(Features* f, const std::string& name) {
  bool* all[] = {&f->sched,         &f->compact_sched, &f->task_lifecycle, &f->process_tree,
                 &f->process_stats, &f->atrace,        &f->track_event,    &f->cpu_counters,
                 &f->rss_stat,      &f->sys_stats,     &f->android_logs,   &f->heap_profile,
                 &f->heap_graph,    &f->clocks,        &f->reorder,        &f->data_loss};
  const auto names = FeatureNames();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return all[i];
  return nullptr;
}

std::string DescribeFeatures(const Features& f) {
  Features copy = f;
  std::ostringstream os;
  for (const auto& name : FeatureNames())
    if (*FeatureByName(&copy, name)) os << name << ' ';
  os << "cpus=" << f.cpus << " processes=" << f.processes << " windows=" << f.windows;
  return os.str();
}

Features FeaturesForSeed(uint64_t seed) {
  std::mt19937_64 rng(seed * 0x2545F4914F6CDD1Dull + 7);
  Features f;
  for (const auto& name : FeatureNames()) *FeatureByName(&f, name) = rng() % 100 < 65;
  f.cpus = 1 + static_cast<int>(rng() % 4);
  f.processes = 1 + static_cast<int>(rng() % 6);
  f.windows = 2 + static_cast<int>(rng() % 10);
  return f;
}

std::string GenerateTrace(uint64_t seed, const Features& features) {
  GenContext ctx(seed);
  ctx.features = features;
  ctx.Reseed(kTimes);
  ctx.start_ts = 1'000'000'000 + ctx.RandRange(0, 50'000'000'000);
  ctx.end_ts = ctx.start_ts + 4'000'000 * features.windows;
  ctx.monotonic_offset = ctx.RandRange(0, 3'000'000'000);
  ctx.realtime_offset = 1'700'000'000'000'000'000 + ctx.RandRange(0, 1'000'000'000);
  ctx.Reseed(kWorld);
  BuildWorld(&ctx);
  if (features.clocks) ctx.Reseed(kClocks), EmitClockSnapshot(&ctx);
  ctx.Reseed(kProcess);
  if (features.process_tree) EmitProcessTree(&ctx, ctx.start_ts);
  ctx.Reseed(kFtrace);
  EmitFtrace(&ctx);
  ctx.Reseed(kProcess + 100);
  if (features.process_tree && ctx.Chance(50)) EmitProcessTree(&ctx, ctx.end_ts);
  if (features.process_stats)
    for (int k = 1; k <= 3; ++k)
      EmitProcessStats(&ctx, ctx.start_ts + (ctx.end_ts - ctx.start_ts) * k / 4);
  if (features.track_event) ctx.Reseed(kTrackEvent), EmitTrackEvents(&ctx);
  if (features.sys_stats) ctx.Reseed(kSysStats), EmitSysStats(&ctx);
  if (features.android_logs) ctx.Reseed(kLogs), EmitAndroidLogs(&ctx);
  if (features.heap_profile) ctx.Reseed(kHeapProfile), EmitHeapProfiles(&ctx);
  if (features.heap_graph) ctx.Reseed(kHeapGraph), EmitHeapGraphs(&ctx);
  ctx.Reseed(kDelivery);
  if (features.clocks) MoveToOtherClocks(&ctx);
  if (features.data_loss) MarkDataLoss(&ctx);
  std::string out;
  for (const TracePacket* p : InterleaveSequences(&ctx)) AppendPacket(*p, &out);
  return out;
}

}  // namespace fathom::difftester
