#include "core/import/trace_diagnostics.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "core/import/clock_tracker.h"
#include "core/import/trace_context.h"
#include "perfetto/config/trace_config.pb.h"

namespace fathom {
namespace {

namespace pp = perfetto::protos;
using Findings = std::vector<TraceDiagnostic>;

// Every data source that configures ftrace (a trace may have several: each
// is checked on its own).
template <typename Fn>
void ForEachFtraceConfig(const pp::TraceConfig& config, Fn&& fn) {
  for (const pp::TraceConfig::DataSource& ds : config.data_sources())
    if (ds.has_config() && ds.config().has_ftrace_config()) fn(ds.config().ftrace_config());
}

// preserve_ftrace_buffer keeps what the kernel buffer held before tracing
// started: minutes after boot, that is stale data.
void CheckPreservedBufferStartedLate(const pp::TraceConfig& config, const RecordingEvidence& ev,
                                     Findings* out) {
  constexpr int64_t kLateStartNs = int64_t{5} * 60 * 1000 * 1000 * 1000;
  ForEachFtraceConfig(config, [&](const pp::FtraceConfig& ftrace) {
    if (!ftrace.preserve_ftrace_buffer() || !ev.tracing_started_since_boot_ns ||
        *ev.tracing_started_since_boot_ns <= kLateStartNs)
      return;
    out->push_back({"preserve_ftrace_buffer_late_start", "Unnecessary preserve_ftrace_buffer",
                    "preserve_ftrace_buffer is set but tracing started more than a few minutes "
                    "after boot; the preserved ftrace buffer may contain very old, misleading "
                    "events.",
                    "Unset preserve_ftrace_buffer, or only use it when starting tracing shortly "
                    "after boot.",
                    0.7});
  });
}

// An explicit buffer under 1 MB overruns under load. Certain at 64 KB or
// less, less so towards 1 MB, certain again once data was actually lost.
void CheckTinyFtraceBuffer(const pp::TraceConfig& config, const RecordingEvidence& ev,
                           Findings* out) {
  constexpr uint32_t kEnoughKb = 1024, kSurelyTooSmallKb = 64;
  ForEachFtraceConfig(config, [&](const pp::FtraceConfig& ftrace) {
    uint32_t kb = ftrace.buffer_size_kb();  // 0: the default size
    if (!ftrace.has_buffer_size_kb() || kb == 0 || kb >= kEnoughKb) return;
    double confidence = 0.9;
    if (kb > kSurelyTooSmallKb && !ev.ftrace_data_loss) {
      double towards_enough =
          static_cast<double>(kb - kSurelyTooSmallKb) / (kEnoughKb - kSurelyTooSmallKb);
      confidence = 0.9 - 0.7 * towards_enough;
    }
    out->push_back({"tiny_ftrace_buffer", "Ftrace buffer too small",
                    "ftrace buffer_size_kb is only " + std::to_string(kb) +
                        " KB (< 1 MB); the kernel ftrace buffer may overrun and drop events "
                        "under load.",
                    "Avoid setting buffer_size_kb explicitly; leave it unset to use the default, "
                    "which is tuned for typical workloads.",
                    confidence});
  });
}

// The buffer must be drained faster than a burst fills it: below 5 MB/s
// (buffer size over drain period) it may not be, at 1 MB/s surely not.
void CheckLowFtraceDrainBandwidth(const pp::TraceConfig& config, const RecordingEvidence& ev,
                                  Findings* out) {
  constexpr double kEnoughMbPerS = 5.0, kSurelyTooLowMbPerS = 1.0;
  ForEachFtraceConfig(config, [&](const pp::FtraceConfig& ftrace) {
    if (!ftrace.has_buffer_size_kb() || !ftrace.has_drain_period_ms()) return;
    uint32_t kb = ftrace.buffer_size_kb(), period_ms = ftrace.drain_period_ms();
    if (kb == 0 || period_ms == 0) return;
    double mb_per_s = (kb / 1024.0) / (period_ms / 1000.0);
    if (mb_per_s >= kEnoughMbPerS) return;
    double confidence = 0.9;
    if (mb_per_s > kSurelyTooLowMbPerS && !ev.ftrace_data_loss)
      confidence = 0.9 * (kEnoughMbPerS - mb_per_s) / (kEnoughMbPerS - kSurelyTooLowMbPerS);
    out->push_back({"low_ftrace_drain_bandwidth", "Low ftrace drain bandwidth",
                    "ftrace drain bandwidth is low (buffer_size_kb=" + std::to_string(kb) +
                        ", drain_period_ms=" + std::to_string(period_ms) +
                        " gives under 5 MB/s); a burst of events can overflow the buffer before "
                        "it is drained.",
                    "Leave buffer_size_kb and drain_period_ms unset to use the defaults, or raise "
                    "buffer_size_kb / lower drain_period_ms to increase the drain bandwidth "
                    "above 5 MB/s.",
                    confidence});
  });
}

// Draining more often than every 100 ms wakes CPUs for nothing; less often
// than every minute overruns the buffer.
void CheckExtremeFtraceDrainPeriod(const pp::TraceConfig& config, const RecordingEvidence&,
                                   Findings* out) {
  ForEachFtraceConfig(config, [&](const pp::FtraceConfig& ftrace) {
    uint32_t ms = ftrace.drain_period_ms();
    if (!ftrace.has_drain_period_ms() || (ms >= 100 && ms <= 60000)) return;
    out->push_back({"extreme_ftrace_drain_period", "Extreme ftrace drain period",
                    "ftrace drain_period_ms is " + std::to_string(ms) +
                        " ms, outside the sane range [100, 60000]; this can cause excessive CPU "
                        "wakeups or buffer overruns.",
                    "Set drain_period_ms within the advised range or, better, leave it unset to "
                    "the default values.",
                    0.6});
  });
}

// raw_syscalls without a syscall_events filter records every syscall.
void CheckSyscallsWithoutFilter(const pp::TraceConfig& config, const RecordingEvidence& ev,
                                Findings* out) {
  ForEachFtraceConfig(config, [&](const pp::FtraceConfig& ftrace) {
    bool traces_syscalls = std::any_of(
        ftrace.ftrace_events().begin(), ftrace.ftrace_events().end(), [](const std::string& e) {
          return e == "raw_syscalls/sys_enter" || e == "raw_syscalls/sys_exit";
        });
    if (!traces_syscalls || ftrace.syscall_events_size() > 0) return;
    out->push_back({"syscalls_without_filter", "Unfiltered syscall tracing",
                    "raw_syscalls (sys_enter/sys_exit) are enabled without any syscall_events "
                    "filter; every syscall is recorded, which can produce huge, expensive traces.",
                    "Restrict syscall_events to the specific syscalls you need (e.g. "
                    "\"sys_read\", \"sys_write\") to cut trace size and overhead.",
                    ev.ftrace_data_loss ? 0.9 : 0.3});
  });
}

// Kernel addresses in function graph frames and in a few events' fields can
// only be named while recording (symbolize_ksyms), never afterwards.
void CheckKernelSymbolsNeeded(const pp::TraceConfig& config, const RecordingEvidence&,
                              Findings* out) {
  static constexpr std::array<std::string_view, 2> kEventsWithKernelAddresses = {
      "workqueue/workqueue_execute_start", "sched/sched_blocked_reason"};
  ForEachFtraceConfig(config, [&](const pp::FtraceConfig& ftrace) {
    if (ftrace.symbolize_ksyms()) return;
    if (ftrace.enable_function_graph()) {
      out->push_back({"function_graph_requires_symbolize_ksyms",
                      "Function graph needs symbolize_ksyms",
                      "enable_function_graph is set but symbolize_ksyms is not; function graph "
                      "tracing records kernel symbol addresses that are unusable without "
                      "symbolization and cannot be resolved after the fact.",
                      "Set symbolize_ksyms: true in the ftrace config.", 1.0});
    }
    auto first = std::find_if(
        ftrace.ftrace_events().begin(), ftrace.ftrace_events().end(), [](const std::string& e) {
          return std::find(kEventsWithKernelAddresses.begin(), kEventsWithKernelAddresses.end(),
                           e) != kEventsWithKernelAddresses.end();
        });
    if (first == ftrace.ftrace_events().end()) return;
    out->push_back({"events_require_symbolize_ksyms", "Events need symbolize_ksyms",
                    "ftrace event " + *first +
                        " is enabled but symbolize_ksyms is not set; its kernel symbol fields "
                        "will be raw addresses that cannot be resolved after the fact.",
                    "Set symbolize_ksyms: true in the ftrace config.", 0.6});
  });
}

// A DISCARD buffer stops at its first fill: behind a high-volume source
// (ftrace, track_event) of a trace streamed to a file, the trace silently
// ends early. One-shot sources are fine with it.
void CheckDiscardBufferForStreaming(const pp::TraceConfig& config, const RecordingEvidence&,
                                    Findings* out) {
  // A period this long (Traceur's) means one final write, not streaming;
  // an unset one means the 5 s default.
  constexpr uint32_t kOneFinalWriteMs = 604800000;
  if (!config.write_into_file() || config.file_write_period_ms() >= kOneFinalWriteMs) return;
  for (const pp::TraceConfig::DataSource& ds : config.data_sources()) {
    if (!ds.has_config()) continue;
    const std::string& name = ds.config().name();
    if (name != "linux.ftrace" && name != "track_event") continue;
    uint32_t target = ds.config().target_buffer();
    if (target >= static_cast<uint32_t>(config.buffers_size()) ||
        config.buffers(static_cast<int>(target)).fill_policy() !=
            pp::TraceConfig::BufferConfig::DISCARD)
      continue;
    out->push_back({"discard_buffer_for_streaming", "DISCARD buffer for streaming",
                    "data source \"" + name +
                        "\" targets a DISCARD buffer while the trace streams into a file; "
                        "DISCARD stops recording once the buffer first fills, silently "
                        "truncating long traces.",
                    "Use the default RING_BUFFER fill_policy for buffers backing ftrace or "
                    "track_event in long/streaming traces.",
                    0.8});
  }
}

// Sampling heap allocations every few KB costs much and adds little.
void CheckHeapprofdSamplingInterval(const pp::TraceConfig& config, const RecordingEvidence& ev,
                                    Findings* out) {
  constexpr uint64_t kSensibleMinBytes = 100 * 1024;
  for (const pp::TraceConfig::DataSource& ds : config.data_sources()) {
    if (!ds.has_config() || !ds.config().has_heapprofd_config()) continue;
    const pp::HeapprofdConfig& heapprofd = ds.config().heapprofd_config();
    uint64_t interval = heapprofd.sampling_interval_bytes();
    if (!heapprofd.has_sampling_interval_bytes() || interval == 0 || interval >= kSensibleMinBytes)
      continue;
    out->push_back({"heapprofd_sampling_interval_too_low", "Heapprofd sampling interval too low",
                    "heapprofd sampling_interval_bytes is " + std::to_string(interval) +
                        " (< 100 KB); such a small sampling interval rarely improves accuracy "
                        "and increases profiling overhead.",
                    "Increase sampling_interval_bytes to at least 100 KB; smaller intervals add "
                    "overhead without meaningfully improving accuracy.",
                    ev.heapprofd_errors ? 0.9 : 0.3});
  }
}

// On user builds display video stays off until a system property allows it:
// requested, silent and empty is that.
void CheckDisplayVideoNotEnabled(const pp::TraceConfig& config, const RecordingEvidence& ev,
                                 Findings* out) {
  bool requested =
      std::any_of(config.data_sources().begin(), config.data_sources().end(),
                  [](const pp::TraceConfig::DataSource& ds) {
                    return ds.has_config() && ds.config().name() == "android.display.video";
                  });
  if (!requested || !ev.android_user_build || ev.display_video_frames || ev.display_video_errors)
    return;
  out->push_back({"display_video_not_enabled", "Display video not captured",
                  "The trace config requested android.display.video, but no frames were "
                  "captured and the producer reported no errors. On user (production) builds "
                  "display video is disabled until the debug.tracing_video_allowed system "
                  "property is set; it resets on reboot.",
                  "Enable it over ADB before recording, then record again (re-run after each "
                  "reboot): adb shell setprop debug.tracing_video_allowed true",
                  0.7});
}

// The build type is the token after the fingerprint's last ':' up to the
// next '/' (brand/product/device:release/id/incremental:type/tags).
bool IsUserBuildFingerprint(std::string_view fingerprint) {
  size_t colon = fingerprint.rfind(':');
  if (colon == std::string_view::npos) return false;
  std::string_view rest = fingerprint.substr(colon + 1);
  return rest.substr(0, rest.find('/')) == "user";
}

bool AnyPositiveStat(const Stats& stats, std::string_view prefix,
                     std::initializer_list<std::string_view> severities) {
  for (uint32_t i = 0; i < static_cast<uint32_t>(Stat::kCount); ++i) {
    Stat s = static_cast<Stat>(i);
    const StatInfo& info = GetStatInfo(s);
    if (std::string_view(info.name).substr(0, prefix.size()) != prefix) continue;
    if (std::find(severities.begin(), severities.end(), info.severity) == severities.end())
      continue;
    if (stats.Get(s) > 0) return true;
    if (const auto* indexed = stats.GetIndexed(s))
      for (const auto& [idx, v] : *indexed)
        if (v > 0) return true;
  }
  return false;
}

std::optional<int64_t> TracingStartedSinceBoot(TraceContext* ctx) {
  const MetadataTable& md = ctx->storage->metadata;
  StringId key = ctx->storage->strings.Find("tracing_started_ns");
  if (key == kNullStringId) return std::nullopt;
  for (uint32_t row = 0; row < md.row_count(); ++row) {
    if (md.name[row] != key || md.int_value.IsNull(row)) continue;
    int64_t started = md.int_value[row];
    // Without a clock path to BOOTTIME, the trace clock is taken to be it
    // (as it is on Android and Linux).
    return ctx->clock_tracker->Convert(ctx->clock_tracker->trace_clock(), kClockBoottime, started)
        .value_or(started);
  }
  return std::nullopt;
}

RecordingEvidence GatherEvidence(TraceContext* ctx) {
  const TraceStorage& storage = *ctx->storage;
  RecordingEvidence ev;
  ev.ftrace_data_loss = storage.stats.Get(Stat::kFtraceLostEvents) > 0;
  ev.heapprofd_errors = AnyPositiveStat(storage.stats, "heapprofd", {"error"});
  // Fathom imports no display video: never frames, never producer errors.
  ev.display_video_frames = false;
  ev.display_video_errors =
      AnyPositiveStat(storage.stats, "android_video_", {"error", "data_loss"});
  StringId fingerprint = storage.machine.android_build_fingerprint[kHostMachineId];
  ev.android_user_build =
      fingerprint != kNullStringId && IsUserBuildFingerprint(storage.GetString(fingerprint));
  ev.tracing_started_since_boot_ns = TracingStartedSinceBoot(ctx);
  return ev;
}

}  // namespace

std::vector<TraceDiagnostic> DiagnoseTraceConfig(const pp::TraceConfig& config,
                                                 const RecordingEvidence& evidence) {
  using Check = void (*)(const pp::TraceConfig&, const RecordingEvidence&, Findings*);
  static constexpr Check kChecks[] = {
      &CheckPreservedBufferStartedLate, &CheckTinyFtraceBuffer,
      &CheckLowFtraceDrainBandwidth,    &CheckExtremeFtraceDrainPeriod,
      &CheckSyscallsWithoutFilter,      &CheckKernelSymbolsNeeded,
      &CheckDiscardBufferForStreaming,  &CheckHeapprofdSamplingInterval,
      &CheckDisplayVideoNotEnabled,
  };
  Findings findings;
  for (Check check : kChecks) check(config, evidence, &findings);
  return findings;
}

void RecordTraceDiagnostics(TraceContext* ctx, std::string_view config_bytes) {
  pp::TraceConfig config;
  if (!config.ParseFromArray(config_bytes.data(), static_cast<int>(config_bytes.size()))) return;
  TraceStorage& storage = *ctx->storage;
  for (const TraceDiagnostic& d : DiagnoseTraceConfig(config, GatherEvidence(ctx))) {
    storage.trace_diagnostics.Insert(storage.Intern(d.key), storage.Intern(d.title),
                                     storage.Intern(d.description), storage.Intern(d.remediation),
                                     d.confidence, TraceStorage::kTraceId);
  }
}

}  // namespace fathom
