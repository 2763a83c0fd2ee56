#include "widgets/timeline/timeline_data.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "core/flamegraph/profiles.h"
#include "core/storage/trace_storage.h"
#include "widgets/common/format.h"
#include "widgets/common/storage_text.h"
#include "widgets/common/theme.h"
#include "widgets/timeline/cpu_samples.h"
#include "widgets/timeline/frame_timeline_style.h"
#include "widgets/timeline/packed_rows.h"
#include "widgets/timeline/process_activity.h"

namespace fathom::gui {
namespace {

QString str(const TraceStorage& s, StringId id) { return StorageText(s, id); }

// Labels cost a string each: only spans at least this wide get one.
constexpr double kLabelMinPx = 28;

std::optional<uint32_t> upidOfThread(const TraceStorage& s, uint32_t utid) {
  return utid < s.thread.row_count() ? s.thread.upid.Get(utid) : std::nullopt;
}

void addArgs(const TraceStorage& s, std::optional<uint32_t> set, Details& d) {
  if (!set) return;
  const ArgsTable& a = s.args;
  const auto& ids = a.arg_set_id.data();
  auto it = std::lower_bound(ids.begin(), ids.end(), *set);
  for (; it != ids.end() && *it == *set; ++it) {
    uint32_t r = static_cast<uint32_t>(it - ids.begin());
    d.fields.push_back({QStringLiteral("arg ") + str(s, a.key[r]),
                        QString::fromStdString(a.display_value.ComputedText(r, s.strings))});
  }
}

// A native dump holds, per heap, the latest dump of that heap up to its ts (the core's
// ListHeapprofdProfiles, as the flamegraph it opens: every heap but ART's Java samples);
// the change is against the same sums just before it.
void addNativeDumpTotals(const TraceStorage& s, const TrackMarker& dump, Details& d) {
  std::map<std::string, const ProfileDump*> at, before;  // by heap
  const std::vector<ProfileDump> dumps = ListHeapprofdProfiles(s);
  for (const ProfileDump& p : dumps) {
    if (p.kind != ProfileKind::kNative || int64_t(p.upid) != dump.upid || p.ts > dump.ts) continue;
    at[p.heap] = &p;  // ordered by ts within a heap: the last one wins
    if (p.ts < dump.ts) before[p.heap] = &p;
  }
  auto sum = [](const std::map<std::string, const ProfileDump*>& m, FlamegraphView v) {
    int64_t total = 0;
    for (const auto& [heap, p] : m) total += p->Total(v);
    return total;
  };
  const int64_t held = sum(at, FlamegraphView::kUnreleasedSize);
  const int64_t change = held - sum(before, FlamegraphView::kUnreleasedSize);
  d.fields.push_back(
      {QStringLiteral("Unreleased"),
       formatBytes(double(held)) +
           QStringLiteral(" in %1 blocks").arg(sum(at, FlamegraphView::kUnreleasedCount))});
  d.fields.push_back({QStringLiteral("Allocated since start"),
                      formatBytes(double(sum(at, FlamegraphView::kTotalSize)))});
  d.fields.push_back({QStringLiteral("Change since previous dump"),
                      (change >= 0 ? QStringLiteral("+") : QStringLiteral("-")) +
                          formatBytes(double(std::llabs(change)))});
}

// A thread's states as spans (a state track, or the strip on its slice track).
QVector<PaintSpan> stateSpans(const TraceStorage& s, const TimelineIndex& index, uint32_t utid,
                              const FrameRequest& req, double ns_per_px) {
  QVector<PaintSpan> level;
  for (const TimelineSpan& sp :
       index.ThreadStateSpans(utid, req.t0, req.t1, static_cast<uint32_t>(req.pixels))) {
    QString state = str(s, s.thread_state.state[sp.row]);
    PaintSpan ps{sp.start, sp.end, sp.row, sp.merged, threadStateColor(state), {}};
    const int64_t dur = s.thread_state.dur[sp.row];
    if (dur < 0 || dur / ns_per_px >= kLabelMinPx) ps.label = threadStateLabel(state);
    level.push_back(std::move(ps));
  }
  return level;
}

}  // namespace

QRgb threadStateColor(QStringView state) {
  if (state.startsWith(u"Running")) return qRgb(0x2e, 0x7d, 0x32);
  if (state.startsWith(u"R")) return qRgb(0x9c, 0xcc, 0x65);  // runnable / preempted
  if (state.startsWith(u"D")) return qRgb(0xef, 0x6c, 0x00);  // uninterruptible (I/O)
  if (state.startsWith(u"S")) return qRgb(0xcf, 0xd8, 0xdc);  // sleeping
  if (state.startsWith(u"X") || state.startsWith(u"Z")) return qRgb(0x5d, 0x40, 0x37);
  return qRgb(0x90, 0xa4, 0xae);
}

bool cpuSlicesVisible(const TrackLayout& layout, double ns_per_px) {
  return layout.cpu_typical_slice_ns >= ns_per_px;
}

FrameData fetchFrame(const TraceStorage& s, const TimelineIndex& index, const TrackLayout& layout,
                     const FrameRequest& req) {
  FrameData out;
  out.request = req;
  if (req.pixels <= 0 || req.t1 <= req.t0) return out;
  const uint32_t px = static_cast<uint32_t>(req.pixels);
  const double ns_per_px = static_cast<double>(req.t1 - req.t0) / px;
  // A span gets a label when its first row alone is wide enough (rows folded
  // in after it are thin by construction).
  auto wide = [&](int64_t ts, int64_t dur) { return dur < 0 || dur / ns_per_px >= kLabelMinPx; };
  for (int ti : req.tracks) {
    if (ti < 0 || ti >= layout.tracks.size()) continue;
    const TrackInfo& t = layout.tracks[ti];
    TrackPaint p;
    switch (t.kind) {
      case TrackKind::kCpuSched: {
        // Zoomed out (a typical slice under a pixel): a utilisation bar graph
        // from the busy-time prefix sums; zoomed in: the slices themselves.
        // One rule for every CPU at this zoom.
        if (!cpuSlicesVisible(layout, ns_per_px)) {
          auto u = index.CpuUtilization(t.cpu, req.t0, req.t1, px);
          p.utilization = QVector<float>(u.begin(), u.end());
          break;
        }
        QVector<PaintSpan> level;
        for (const TimelineSpan& sp : index.SchedSpans(t.cpu, req.t0, req.t1, px)) {
          uint32_t utid = s.sched.utid[sp.row];
          if (utid == 0 && sp.merged == 0) continue;  // idle: leave the gap
          PaintSpan ps{sp.start, sp.end, sp.row, sp.merged, 0, {}};
          auto upid = upidOfThread(s, utid);
          // A folded run that starts idle has no single owner: neutral grey.
          ps.color =
              utid == 0 ? qRgb(0x9e, 0x9e, 0x9e) : colorForId(upid ? 1000 + *upid : utid).rgb();
          if (wide(s.sched.ts[sp.row], s.sched.dur[sp.row])) ps.label = str(s, s.thread.name[utid]);
          level.push_back(std::move(ps));
        }
        p.levels.push_back(std::move(level));
        break;
      }
      case TrackKind::kThreadState:
        p.levels.push_back(stateSpans(s, index, t.utid, req, ns_per_px));
        break;
      case TrackKind::kProcessSummary:
        if (t.activity) p.utilization = t.activity->Buckets(req.t0, req.t1, req.pixels);
        break;
      case TrackKind::kSlices: {
        if (t.hasStateStrip())
          p.states = stateSpans(s, index, uint32_t(t.state_utid), req, ns_per_px);
        auto colorOf = [&](uint32_t row, const QString& name) {
          auto frame = layout.frame_rows.constFind(row);
          return frame != layout.frame_rows.cend() ? frameSliceColor(s, frame.value())
                                                   : colorForName(name).rgb();
        };
        if (t.packed) {  // several tracks in one row, laid out by overlap
          for (const QVector<quint32>& rows : t.packed->levels)
            p.levels.push_back(packedLevelSpans(
                s, rows, req.t0, req.t1, ns_per_px, [&](PaintSpan& ps, bool is_wide) {
                  const QString name = str(s, s.slice.name[ps.row]);
                  ps.color = colorOf(ps.row, name);
                  if (is_wide && ps.merged == 0 && wide(0, s.slice.dur[ps.row])) ps.label = name;
                }));
          break;
        }
        for (const SlicePart& part : t.sliceParts())
          for (uint32_t d = 0; d < part.depths; ++d) {
            QVector<PaintSpan> level;
            for (const TimelineSpan& sp : index.SliceSpans(part.track_id, d, req.t0, req.t1, px)) {
              QString name = str(s, s.slice.name[sp.row]);
              const QRgb color = colorOf(sp.row, name);
              PaintSpan ps{sp.start, sp.end, sp.row, sp.merged, color, {}};
              if (wide(s.slice.ts[sp.row], s.slice.dur[sp.row])) ps.label = name;
              level.push_back(std::move(ps));
            }
            p.levels.push_back(std::move(level));
          }
        break;
      }
      case TrackKind::kCounter: {
        auto b = index.CounterBuckets(t.track_id, req.t0, req.t1, px);
        p.buckets = QVector<CounterBucket>(b.begin(), b.end());
        bool first = true;
        for (const CounterBucket& c : b) {
          if (!c.has_value) continue;
          p.vmin = first ? c.min : std::min(p.vmin, c.min);
          p.vmax = first ? c.max : std::max(p.vmax, c.max);
          first = false;
        }
        break;
      }
      case TrackKind::kCpuSamples:
        if (t.samples) p.levels.push_back(sampleSpans(*t.samples, req.t0, req.t1, ns_per_px));
        break;
      case TrackKind::kInstants:
      case TrackKind::kHeapDumps:
        break;  // the markers are in the layout already
    }
    out.tracks.insert(ti, std::move(p));
  }
  return out;
}

namespace {
FlowEnd flowEnd(const TraceStorage& s, uint32_t slice, bool leaving) {
  const SliceTable& sl = s.slice;
  FlowEnd e;
  e.slice = slice;
  e.track_id = sl.track_id[slice];
  e.depth = sl.depth[slice];
  const int64_t dur = sl.dur[slice];
  e.ts = leaving ? sl.ts[slice] + std::max<int64_t>(dur, 0) : sl.ts[slice];
  e.name = str(s, sl.name[slice]);
  return e;
}

// Flows touching `row`, as "Flow out"/"Flow in" fields and arrow ends. A scan of the flow
// table: one click, and even a million flows scan in about a millisecond.
void addFlows(const TraceStorage& s, uint32_t row, Details& d) {
  const FlowTable& f = s.flow;
  const uint32_t n = s.slice.row_count();
  for (uint32_t i = 0; i < f.row_count(); ++i) {
    const uint32_t out = f.slice_out[i], in = f.slice_in[i];
    if ((out != row && in != row) || out >= n || in >= n) continue;
    FlowLink link{flowEnd(s, out, true), flowEnd(s, in, false), out == row};
    const FlowEnd& other = link.outgoing ? link.to : link.from;
    d.fields.push_back({link.outgoing ? QStringLiteral("Flow to") : QStringLiteral("Flow from"),
                        other.name + QStringLiteral("  (slice %1)").arg(other.slice)});
    d.flows.push_back(std::move(link));
  }
}
}  // namespace

QString threadStateLabel(const QString& code) {
  static const QHash<QString, QString> kLabels = {
      {"Running", "Running"},
      {"R", "Runnable"},
      {"R+", "Runnable (Preempted)"},
      {"S", "Sleeping"},
      {"D", "Uninterruptible Sleep"},
      {"T", "Stopped"},
      {"t", "Traced"},
      {"X", "Exit (Dead)"},
      {"Z", "Exit (Zombie)"},
      {"x", "Task Dead"},
      {"I", "Idle"},
      {"K", "Wake Kill"},
      {"W", "Waking"},
      {"P", "Parked"},
      {"N", "No Load"},
  };
  auto it = kLabels.find(code);
  if (it != kLabels.end()) return it.value();
  // Combined kernel states ("D|K", "S|W", "R+|K"): each letter spelled out,
  // joined, "+" as "(Preempted)" after the state it marks. Unknown letters
  // stay as they are, so nothing the trace says is hidden.
  QStringList parts;
  for (QChar c : code) {
    if (c == QLatin1Char('|')) continue;
    if (c == QLatin1Char('+') && !parts.isEmpty()) {
      parts.last() += QStringLiteral(" (Preempted)");
      continue;
    }
    auto one = kLabels.find(QString(c));
    parts << (one != kLabels.end() ? one.value() : QString(c));
  }
  return parts.isEmpty() ? code : parts.join(QStringLiteral(" + "));
}

SelectionStats computeSelection(const TraceStorage& s, const TimelineIndex& index,
                                const TrackLayout& layout, qint64 t0, qint64 t1,
                                const QVector<int>& tracks) {
  SelectionStats out;
  out.t0 = t0;
  out.t1 = t1;
  std::map<uint32_t, int64_t> per_thread;
  struct StateAgg {
    int64_t ns = 0, count = 0;
    std::map<uint32_t, int64_t> per_thread;
  };
  std::map<uint32_t, StateAgg> per_state;                          // state string id ->
  std::map<uint32_t, std::pair<int64_t, int64_t>> per_slice_name;  // name id -> (count, ns)
  for (int ti : tracks) {
    if (ti < 0 || ti >= layout.tracks.size()) continue;
    const TrackInfo& t = layout.tracks[ti];
    if (t.kind == TrackKind::kCpuSched) {
      out.cpus.push_back(static_cast<int>(t.cpu));
      for (uint32_t row : index.SchedSlicesInRange(t.cpu, t0, t1)) {
        uint32_t utid = s.sched.utid[row];
        if (utid == 0) continue;
        int64_t ts = s.sched.ts[row], dur = s.sched.dur[row];
        int64_t end = dur < 0 ? std::max<int64_t>(ts, s.max_ts()) : ts + dur;
        int64_t ns = std::min<int64_t>(end, t1) - std::max<int64_t>(ts, t0);
        if (ns > 0) per_thread[utid] += ns;
      }
    }
    if (t.kind == TrackKind::kCpuSamples && !out.utids.contains(int(t.utid)))
      out.utids.push_back(int(t.utid));  // the flamegraph follows its samples
    if (t.kind == TrackKind::kThreadState || t.hasStateStrip()) {
      const uint32_t utid = t.kind == TrackKind::kThreadState ? t.utid : uint32_t(t.state_utid);
      if (!out.utids.contains(int(utid))) out.utids.push_back(int(utid));
      ++out.stateTracks;
      const ThreadStateTable& st = s.thread_state;
      for (uint32_t row : index.ThreadStateRowsInRange(utid, t0, t1)) {
        const int64_t end = st.dur[row] < 0 ? s.max_ts() : st.ts[row] + st.dur[row];
        const int64_t ns = std::min<int64_t>(end, t1) - std::max<int64_t>(st.ts[row], t0);
        auto& agg = per_state[st.state[row]];
        agg.count++;
        agg.ns += std::max<int64_t>(ns, 0);
        agg.per_thread[st.utid[row]] += std::max<int64_t>(ns, 0);
      }
    }
    if (t.kind == TrackKind::kSlices) {
      if (auto utid = s.track.utid.Get(t.track_id); utid && !out.utids.contains(int(*utid)))
        out.utids.push_back(int(*utid));
      ++out.sliceTracks;
      const SliceTable& sl = s.slice;
      for (const SlicePart& part : t.sliceParts())
        for (uint32_t row : index.SliceRowsInRange(part.track_id, t0, t1)) {
          const int64_t end = sl.dur[row] < 0 ? s.max_ts() : sl.ts[row] + sl.dur[row];
          auto& agg = per_slice_name[sl.name[row]];
          agg.first++;
          agg.second +=
              std::max<int64_t>(0, std::min<int64_t>(end, t1) - std::max<int64_t>(sl.ts[row], t0));
        }
    } else if (t.kind == TrackKind::kCounter) {
      std::optional<uint32_t> before;
      auto rows = index.CounterRowsInRange(t.track_id, t0, t1, &before);
      SelectionStats::CounterStats c;
      c.name = t.name;
      c.count = static_cast<qint64>(rows.size());
      const auto& v = s.counter.value;
      const auto& ts = s.counter.ts;
      // Values in force during the selection: the one carried in from before
      // t0, then every sample inside. avg is weighted by how long each held.
      std::vector<uint32_t> in_force;
      if (before) in_force.push_back(*before);
      in_force.insert(in_force.end(), rows.begin(), rows.end());
      if (!in_force.empty()) {
        c.min = c.max = v[in_force[0]];
        double weighted = 0;
        for (size_t i = 0; i < in_force.size(); ++i) {
          double x = v[in_force[i]];
          c.min = std::min(c.min, x);
          c.max = std::max(c.max, x);
          int64_t a = std::max<int64_t>(ts[in_force[i]], t0);
          int64_t b = i + 1 < in_force.size() ? ts[in_force[i + 1]] : t1;
          weighted += x * static_cast<double>(b - a);
        }
        c.avg = weighted / static_cast<double>(t1 - t0);
        c.delta = v[in_force.back()] - v[in_force.front()];
      }
      out.counters.push_back(c);
    }
  }
  std::map<int64_t, int64_t> per_process;
  for (const auto& [utid, ns] : per_thread) {
    SelectionStats::ThreadTime tt;
    tt.utid = utid;
    auto upid = upidOfThread(s, utid);
    tt.upid = upid ? static_cast<qint64>(*upid) : -1;
    tt.thread = threadLabel(s, utid);
    tt.process = upid ? processLabel(s, *upid) : QStringLiteral("(no process)");
    tt.ns = ns;
    per_process[tt.upid] += ns;
    out.processNames.insert(tt.upid, tt.process);
    out.threads.push_back(tt);
  }
  std::sort(out.threads.begin(), out.threads.end(),
            [](const auto& a, const auto& b) { return a.ns > b.ns; });
  for (const auto& [state, agg] : per_state) {
    SelectionStats::StateTime st;
    st.state = threadStateLabel(str(s, state));
    st.ns = agg.ns;
    st.count = agg.count;
    for (const auto& [utid, ns] : agg.per_thread) st.threads.push_back({threadLabel(s, utid), ns});
    std::sort(st.threads.begin(), st.threads.end(),
              [](const auto& a, const auto& b) { return a.second > b.second; });
    out.states.push_back(std::move(st));
  }
  std::sort(out.states.begin(), out.states.end(),
            [](const auto& a, const auto& b) { return a.ns > b.ns; });
  for (const auto& [name, agg] : per_slice_name)
    out.slices.push_back({str(s, name), agg.first, agg.second});
  std::sort(out.slices.begin(), out.slices.end(),
            [](const auto& a, const auto& b) { return a.wallNs > b.wallNs; });
  for (const auto& [upid, ns] : per_process) out.processes.push_back({upid, ns});
  std::sort(out.processes.begin(), out.processes.end(),
            [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

Details computeDetails(const TraceStorage& s, const TimelineIndex& index, const TrackInfo& t,
                       quint32 row, qint64 ts, qint64 trace_start) {
  s.args.EnsureMaterialized();  // arg set ids are final from here (ArgsTable)
  Details d;
  auto when = [&](int64_t v) { return formatTimestamp(v - trace_start, 1); };
  auto addThread = [&](uint32_t utid) {
    auto upid = upidOfThread(s, utid);
    d.fields.push_back(
        {QStringLiteral("Process"), upid ? processLabel(s, *upid) : QStringLiteral("(none)")});
    d.fields.push_back({QStringLiteral("Thread"), threadLabel(s, utid)});
  };
  auto addWaker = [&](uint32_t utid, int64_t at) {
    // The waker is recorded on the thread-state row that ends when the
    // thread starts running (the runnable period before it).
    for (const TimelineSpan& sp : index.ThreadStateSpans(utid, at - 1, at + 1, 2)) {
      if (auto w = s.thread_state.waker_utid.Get(sp.row)) {
        d.fields.push_back({QStringLiteral("Woken by"), threadLabel(s, *w)});
        return;
      }
    }
  };
  switch (t.kind) {
    case TrackKind::kCpuSched: {
      if (row >= s.sched.row_count()) break;
      d.title = QStringLiteral("Scheduling slice");
      uint32_t utid = s.sched.utid[row];
      addThread(utid);
      d.fields.push_back({QStringLiteral("CPU"), QString::number(s.sched.cpu[row])});
      d.fields.push_back({QStringLiteral("Start"), when(s.sched.ts[row])});
      int64_t dur = s.sched.dur[row];
      d.fields.push_back({QStringLiteral("Duration"),
                          dur < 0 ? QStringLiteral("(did not end)") : formatDuration(dur)});
      if (QString end = str(s, s.sched.end_state[row]); !end.isEmpty())
        d.fields.push_back({QStringLiteral("End state"),
                            threadStateLabel(end) + QStringLiteral("  (") + end + ')'});
      d.fields.push_back({QStringLiteral("Priority"), QString::number(s.sched.priority[row])});
      addWaker(utid, s.sched.ts[row]);
      break;
    }
    case TrackKind::kThreadState: {
      if (row >= s.thread_state.row_count()) break;
      const ThreadStateTable& st = s.thread_state;
      const QString code = str(s, st.state[row]);
      QString name = threadStateLabel(code);
      if (st.io_wait.Get(row).value_or(0) != 0) name += QStringLiteral(" (IO)");
      d.title = QStringLiteral("Thread state: ") + name;
      d.fields.push_back({QStringLiteral("State"), name + QStringLiteral("  (") + code + ')'});
      addThread(st.utid[row]);
      d.fields.push_back({QStringLiteral("Start"), when(st.ts[row])});
      d.fields.push_back({QStringLiteral("Duration"), st.dur[row] < 0
                                                          ? QStringLiteral("(did not end)")
                                                          : formatDuration(st.dur[row])});
      if (auto cpu = st.cpu.Get(row))
        d.fields.push_back({QStringLiteral("CPU"), QString::number(*cpu)});
      if (auto f = str(s, st.blocked_function[row]); !f.isEmpty())
        d.fields.push_back({QStringLiteral("Blocked in"), f});
      if (auto w = st.waker_utid.Get(row))
        d.fields.push_back({QStringLiteral("Woken by"), threadLabel(s, *w)});
      break;
    }
    case TrackKind::kSlices: {
      if (row >= s.slice.row_count()) break;
      const SliceTable& sl = s.slice;
      d.title = QStringLiteral("Slice: ") + str(s, sl.name[row]);
      uint32_t track = sl.track_id[row];
      if (auto utid = s.track.utid.Get(track))
        addThread(*utid);
      else if (auto upid = s.track.upid.Get(track))
        d.fields.push_back({QStringLiteral("Process"), processLabel(s, *upid)});
      if (auto cat = str(s, sl.category[row]); !cat.isEmpty())
        d.fields.push_back({QStringLiteral("Category"), cat});
      d.fields.push_back({QStringLiteral("Start"), when(sl.ts[row])});
      d.fields.push_back({QStringLiteral("Duration"), sl.dur[row] < 0
                                                          ? QStringLiteral("(did not end)")
                                                          : formatDuration(sl.dur[row])});
      d.fields.push_back({QStringLiteral("Depth"), QString::number(sl.depth[row])});
      if (auto frame = frameRowOfSlice(s, row)) addFrameDetails(s, *frame, d);
      addArgs(s, sl.arg_set_id.Get(row), d);
      addFlows(s, row, d);
      break;
    }
    case TrackKind::kCounter: {
      std::optional<uint32_t> before;
      index.CounterRowsInRange(t.track_id, ts + 1, ts + 2, &before);
      d.title = QStringLiteral("Counter: ") + t.name;
      if (!before) break;
      uint32_t r = *before;
      d.fields.push_back({QStringLiteral("Sample at"), when(s.counter.ts[r])});
      d.fields.push_back({QStringLiteral("Value"), QString::number(s.counter.value[r], 'g', 12)});
      std::optional<uint32_t> prev;
      index.CounterRowsInRange(t.track_id, s.counter.ts[r], s.counter.ts[r] + 1, &prev);
      if (prev)
        d.fields.push_back({QStringLiteral("Change"),
                            QString::number(s.counter.value[r] - s.counter.value[*prev], 'g', 12)});
      addArgs(s, s.counter.arg_set_id.Get(r), d);
      break;
    }
    case TrackKind::kProcessSummary:
      break;
    case TrackKind::kCpuSamples:
      if (t.samples) addSampleDetails(s, *t.samples, row, trace_start, d);
      break;
    case TrackKind::kInstants:
    case TrackKind::kHeapDumps: {
      const TrackMarker* best = nullptr;
      for (const TrackMarker& m : t.markers)
        if (!best || std::llabs(m.ts - ts) < std::llabs(best->ts - ts)) best = &m;
      if (!best) break;
      if (t.kind == TrackKind::kInstants) {
        d.title = QStringLiteral("Low memory kill");
        d.fields.push_back({QStringLiteral("Process"), best->label});  // the one killed
        d.fields.push_back({QStringLiteral("Time"), when(best->ts)});
      } else {
        d.title = QStringLiteral("Heap dump (") + best->kind + ")";
        d.fields.push_back({QStringLiteral("Process"),
                            best->upid >= 0 ? processLabel(s, uint32_t(best->upid)) : best->label});
        d.fields.push_back({QStringLiteral("Time"), when(best->ts)});
        if (best->kind == QStringLiteral("native")) addNativeDumpTotals(s, *best, d);
      }
      if (t.kind == TrackKind::kInstants && best->row < s.slice.row_count())
        addArgs(s, s.slice.arg_set_id.Get(best->row), d);
      break;
    }
  }
  return d;
}

}  // namespace fathom::gui
