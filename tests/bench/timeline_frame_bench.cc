// Timeline frame-time benchmark (offscreen): generates N sched slices (20 M by
// default) straight into a TraceStorage — 8 CPUs, 300 processes x 8 threads,
// idle gaps between runs like a real trace — builds the TimelineIndex and the
// track layout, then pans and zooms across it. A frame is what the UI waits
// for: the worker lookup (fetchFrame) plus the paint of the whole canvas.
// Prints median / p95 frame time, index build time, idle and peak RSS.
//
//   fathom-bench-timeline [--slices N] [--frames N] [--size WxH]
#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/storage/timeline_index.h"
#include "core/storage/trace_storage.h"
#include "widgets/timeline/timeline_canvas.h"
#include "widgets/timeline/track_layout.h"
#include "widgets/timeline/track_model.h"

namespace {

// CPU time of this thread: on a shared machine wall time mostly measures
// the other processes; both are printed.
double threadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

long rssKb(const char* field) {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::strlen(field)));
  return -1;
}

void generate(fathom::TraceStorage& s, uint64_t slices) {
  using namespace fathom;
  constexpr int kCpus = 8, kProcs = 300, kThreadsPerProc = 8;
  s.thread.Insert(0);  // utid 0: swapper (idle)
  std::vector<uint32_t> utids;
  for (int p = 0; p < kProcs; ++p) {
    uint32_t upid = s.process.Insert(1000 + p * 10);
    s.process.name.Set(upid, s.Intern("com.example.app" + std::to_string(p)));
    for (int t = 0; t < kThreadsPerProc; ++t) {
      uint32_t utid = s.thread.Insert(1000 + p * 10 + t);
      s.thread.upid.Set(utid, upid);
      s.thread.name.Set(utid, s.Intern(t == 0 ? "main" : "worker-" + std::to_string(t)));
      utids.push_back(utid);
    }
  }
  StringId states[] = {s.Intern("S"), s.Intern("R"), s.Intern("D")};
  s.sched.ts.Reserve(slices);
  s.sched.dur.Reserve(slices);
  s.sched.cpu.Reserve(slices);
  s.sched.utid.Reserve(slices);
  s.sched.end_state.Reserve(slices);
  s.sched.priority.Reserve(slices);
  // Interleave CPUs in global ts order, as the importer inserts them.
  std::mt19937_64 rng(42);
  std::vector<int64_t> next(kCpus, 0);
  std::vector<bool> busy(kCpus, true);
  int64_t max_ts = 0;
  for (uint64_t i = 0; i < slices; ++i) {
    int cpu = static_cast<int>(std::min_element(next.begin(), next.end()) - next.begin());
    int64_t ts = next[cpu];
    // Runs of 5-200 us, idle gaps of 1-50 us: ~2.5 M slices per CPU over ~2 min.
    int64_t dur = busy[cpu] ? 5000 + static_cast<int64_t>(rng() % 195000)
                            : 1000 + static_cast<int64_t>(rng() % 49000);
    uint32_t utid = busy[cpu] ? utids[rng() % utids.size()] : 0;
    s.sched.Insert(ts, dur, static_cast<uint32_t>(cpu), utid, states[rng() % 3], 120);
    next[cpu] = ts + dur;
    busy[cpu] = !busy[cpu];
    max_ts = std::max(max_ts, ts + dur);
  }
  s.UpdateBounds(0);
  s.UpdateBounds(max_ts);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t slices = 20'000'000;
  int frames = 120, width = 1600, height = 1000;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--slices"))
      slices = std::stoull(argv[++i]);
    else if (!std::strcmp(argv[i], "--frames"))
      frames = std::stoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--size"))
      std::sscanf(argv[++i], "%dx%d", &width, &height);
  }
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  using namespace fathom;
  using namespace fathom::gui;

  QElapsedTimer timer;
  timer.start();
  auto storage = std::make_unique<TraceStorage>();
  generate(*storage, slices);
  double gen_s = timer.nsecsElapsed() / 1e9;
  timer.restart();
  TimelineIndex index(*storage);
  double index_s = timer.nsecsElapsed() / 1e9;
  timer.restart();
  // As the window does: the layout (first paint waits for it), then the process summaries.
  TrackLayout layout = buildTrackLayout(*storage, index, false);
  double layout_s = timer.nsecsElapsed() / 1e9;
  timer.restart();
  const QHash<int, TrackInfo> summaries = processSummaries(layout, *storage, index);
  double summaries_s = timer.nsecsElapsed() / 1e9;

  TrackListModel model;
  model.setLayout(layout);
  model.updateTracks(summaries);
  TimelineCanvas canvas(nullptr, &model);
  canvas.resize(width, height);
  // Open the busiest processes too, so thread-state rows are on screen.
  for (int g = 0, opened = 0; g < layout.groups.size() && opened < 2; ++g)
    if (layout.groups[g].kind == GroupKind::kProcess) model.setExpanded(g, true), ++opened;
  const int64_t start = storage->min_ts(), end = storage->max_ts();
  canvas.setBounds(start, end);
  QImage image(width, height, QImage::Format_ARGB32_Premultiplied);

  std::vector<double> fetch_ms, paint_ms, cpu_ms;
  auto frame = [&](int64_t t0, int64_t t1) {
    QElapsedTimer f;
    const double cpu0 = threadCpuMs();
    f.start();
    canvas.setRange(t0, t1);
    FrameData data = fetchFrame(*storage, index, model.layout(), canvas.currentRequest());
    double fetched = f.nsecsElapsed() / 1e6;
    canvas.applyFrame(std::move(data));
    canvas.render(&image);
    double total = f.nsecsElapsed() / 1e6;
    cpu_ms.push_back(threadCpuMs() - cpu0);
    if (std::getenv("FATHOM_BENCH_VERBOSE"))
      std::printf("    [%lld ns wide] lookup %.2f ms, paint %.2f ms, cpu %.2f ms\n",
                  static_cast<long long>(t1 - t0), fetched, total - fetched, cpu_ms.back());
    fetch_ms.push_back(fetched);
    paint_ms.push_back(total - fetched);
    return total;
  };
  frame(start, end);  // warm-up; first paint
  long idle_kb = rssKb("VmRSS:");

  // Zoom from the whole trace down to ~100 us around the middle, pan across
  // at that zoom, zoom out again, then pan the whole trace at 1 s windows.
  std::vector<double> times;
  int64_t len = end - start, mid = start + len / 2;
  for (int i = 0; i < frames / 4; ++i) {
    int64_t l = static_cast<int64_t>(len * std::pow(1e-6, double(i) / (frames / 4)));
    times.push_back(frame(mid - l / 2, mid + l / 2));
  }
  for (int i = 0; i < frames / 4; ++i)
    times.push_back(frame(mid + i * 20000, mid + i * 20000 + 200000));
  for (int i = frames / 4; i > 0; --i) {
    int64_t l = static_cast<int64_t>(len * std::pow(1e-6, double(i) / (frames / 4)));
    times.push_back(frame(mid - l / 2, mid + l / 2));
  }
  for (int i = 0; i < frames / 4; ++i) {
    int64_t t0 = start + (len - 1000000000) * i / std::max(1, frames / 4 - 1);
    times.push_back(frame(t0, t0 + 1000000000));
  }
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  double median = sorted[sorted.size() / 2], p95 = sorted[sorted.size() * 95 / 100];
  std::printf("timeline bench: %llu sched slices, %d CPU tracks, %dx%d canvas\n",
              static_cast<unsigned long long>(slices), layout.countKind(TrackKind::kCpuSched),
              width, height);
  std::printf(
      "  generate %.2f s, index build %.2f s, track layout %.2f s, process summaries %.2f s\n",
      gen_s, index_s, layout_s, summaries_s);
  std::printf("  visible tracks in the last frame: %d\n",
              static_cast<int>(canvas.currentRequest().tracks.size()));
  image.save(QStringLiteral("timeline_bench_last_frame.png"));
  std::printf("  frames %zu: median %.2f ms, p95 %.2f ms, max %.2f ms (fetch + paint)\n",
              times.size(), median, p95, sorted.back());
  auto median_of = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::vector<double> cpu_sorted = cpu_ms;
  std::sort(cpu_sorted.begin(), cpu_sorted.end());
  std::printf("  frame CPU time: median %.2f ms, p95 %.2f ms\n", cpu_sorted[cpu_sorted.size() / 2],
              cpu_sorted[cpu_sorted.size() * 95 / 100]);
  std::printf("  median lookup (worker) %.2f ms, median paint (UI) %.2f ms\n", median_of(fetch_ms),
              median_of(paint_ms));
  std::printf("  idle RSS after first paint %.1f MB, peak RSS %.1f MB\n", idle_kb / 1024.0,
              rssKb("VmHWM:") / 1024.0);
  return 0;
}
