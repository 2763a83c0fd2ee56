// Process memory counter tracks (rss_stat and ProcessStats), as upstream
// lays them out: "mem.smaps.*" tracks are type smaps with a smaps_key
// dimension, the others type process_memory with a process_memory_key
// dimension and a description as their source arg (texts as the reference
// trace processor reports them).
#include "core/import/process_memory_tracks.h"

#include <string>
#include <string_view>

#include "core/import/args_tracker.h"
#include "core/import/track_tracker.h"

namespace fathom {

namespace {

struct Description {
  const char* key;
  const char* text;
};

constexpr Description kDescriptions[] = {
    {"dmabuf_rss",
     "DMA buffer RSS: Physical memory used for DMA buffers (successor to Android ION). Used for "
     "surfaces, hardware bitmaps, media/camera buffers, and other GPU/hardware accelerator memory. "
     "Critical for graphics/camera apps. High values indicate GPU memory pressure or resource "
     "leaks in graphics/media pipelines. See dmabuf ftrace events or /proc/[pid]/fdinfo polling "
     "for information."},
    {"locked",
     "Locked memory pages (VmLocked): Memory pinned in RAM that cannot be swapped out or reclaimed "
     "(via mlock). High values prevent memory reclamation during pressure. Typically set via "
     "profiler-guided optimization to minimize faults on critical paths. WARNING: Polled "
     "periodically, so may miss short-lived changes. See "
     "https://perfetto.dev/docs/data-sources/memory-counters#per-process-polled-counters for "
     "information."},
    {"rss",
     "Resident set size (VmRSS): Total physical memory currently used by the process (rss.anon + "
     "rss.file + rss.shmem). Key metric for understanding actual memory pressure and OOM risk. "
     "WARNING: Polled periodically, so use rss.anon + rss.file + rss.shmem from ftrace for "
     "complementary high-resolution tracking. See "
     "https://perfetto.dev/docs/data-sources/memory-counters#per-process-polled-counters for "
     "information."},
    {"rss.anon",
     "Anonymous resident memory (RssAnon): Physical memory for heap and stack allocations not "
     "backed by files. High values indicate memory allocations from malloc/new. Most important for "
     "app memory usage and detecting memory leaks. See "
     "https://perfetto.dev/docs/data-sources/memory-counters#per-process-memory-events-ftrace for "
     "information."},
    {"rss.file",
     "File-backed resident memory (RssFile): Physical memory used for memory-mapped files (e.g., "
     "code, libraries, mmap'd files). Useful for understanding shared library overhead. Can be "
     "reclaimed under memory pressure. See "
     "https://perfetto.dev/docs/data-sources/memory-counters#per-process-memory-events-ftrace for "
     "information."},
    {"rss.shmem",
     "Shared memory resident pages (RssShmem): Physical memory in shared memory regions "
     "(shmem/tmpfs). Used for IPC and shared data. Important for identifying inter-process memory "
     "usage. See "
     "https://perfetto.dev/docs/data-sources/memory-counters#per-process-memory-events-ftrace for "
     "information."},
    {"rss.watermark",
     "Peak RSS (VmHWM): Historical maximum RSS reached by the process. Useful for capacity "
     "planning and detecting memory usage spikes that may have triggered OOM or performance "
     "issues. WARNING: Polled periodically, so the time of the spike may not be accurate. Prefer "
     "relying on rss.anon + rss.file + rss.shmem which have pushed ftrace events so are more time "
     "accurate. See "
     "https://perfetto.dev/docs/data-sources/memory-counters#per-process-polled-counters for "
     "information."},
    {"swap",
     "Swapped memory (VmSwap): Memory moved to swap storage. Does not necessarily indicate severe "
     "pressure - kswapd may swap out inactive memory proactively. However, if actively used and "
     "swap/anon ratio is high, this suggests inefficient memory usage or leaks. Accessing swapped "
     "memory causes major page faults and performance degradation. Available from both ftrace and "
     "polling for complementary views. See "
     "https://perfetto.dev/docs/data-sources/memory-counters#per-process-memory-events-ftrace or "
     "https://perfetto.dev/docs/data-sources/memory-counters#per-process-polled-counters for "
     "information."},
    {"unreclaimable", "Unreclaimable memory: KGSL driver specific event, rarely useful."},
    {"virt",
     "Virtual memory size (VmSize): Total virtual address space reserved by the process. Useful "
     "for understanding address space layout and detecting excessive memory reservations. WARNING: "
     "Polled periodically, so may miss short-lived changes. See "
     "https://perfetto.dev/docs/data-sources/memory-counters#per-process-polled-counters for "
     "information."},
};

// "mem.rss.anon" -> "rss.anon".
std::string_view MemoryKey(std::string_view name) {
  return name.substr(name.rfind("mem.", 0) == 0 ? 4 : 0);
}

const char* DescriptionOf(std::string_view key) {
  for (const Description& d : kDescriptions)
    if (key == d.key) return d.text;
  return nullptr;
}

}  // namespace

uint32_t InternProcessMemoryTrack(TraceContext* ctx, uint32_t upid, StringId name) {
  TraceStorage* s = ctx->storage.get();
  const std::string full(s->GetString(name));  // the pool may grow below
  std::string_view key = MemoryKey(full);
  const bool smaps = key.rfind("smaps.", 0) == 0;
  const uint32_t before = s->track.row_count();
  uint32_t track;
  if (smaps) {
    track = ctx->track_tracker->InternProcessCounterTrack(
        upid, name, s->Intern("smaps"), TrackDims().Str("smaps_key", key.substr(6)));
  } else {
    track = ctx->track_tracker->InternProcessCounterTrack(
        upid, name, s->Intern("process_memory"), TrackDims().Str("process_memory_key", key));
  }
  if (track < before || smaps) return track;
  // A new track: its description follows its dimensions.
  if (const char* text = DescriptionOf(key)) {
    auto source = ctx->args_tracker->NewSet().AddString("description", std::string_view(text));
    if (auto set = source.Commit()) s->track.source_arg_set_id.Set(track, *set);
  }
  return track;
}

uint32_t InternThreadMemoryFallbackTrack(TraceContext* ctx, uint32_t utid, StringId name) {
  TraceStorage* s = ctx->storage.get();
  const std::string full(s->GetString(name));  // the pool may grow below
  return ctx->track_tracker->InternThreadCounterTrack(
      utid, name, s->Intern("process_memory_thread_fallback"),
      TrackDims().Str("process_memory_key", MemoryKey(full)));
}

}  // namespace fathom
