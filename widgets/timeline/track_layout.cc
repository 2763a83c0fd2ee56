#include "widgets/timeline/track_layout.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "core/storage/timeline_index.h"
#include "core/storage/trace_storage.h"
#include "widgets/common/storage_text.h"
#include "widgets/timeline/cpu_samples.h"
#include "widgets/timeline/frame_timeline_style.h"
#include "widgets/timeline/packed_rows.h"
#include "widgets/timeline/process_activity.h"

namespace fathom::gui {
namespace {

QString str(const TraceStorage& s, StringId id) { return StorageText(s, id); }

std::optional<uint32_t> threadUpid(const TraceStorage& s, uint32_t utid) {
  if (utid >= s.thread.row_count()) return std::nullopt;
  return s.thread.upid.Get(utid);
}

bool isCpuFreqOrIdle(const QString& name, const QString& type) {
  return type == QLatin1String("cpu_frequency") || type == QLatin1String("cpu_idle") ||
         name == QLatin1String("cpufreq") || name == QLatin1String("cpuidle");
}

// CPUs: one track per CPU that has scheduling data.
QVector<TrackInfo> cpuTracks(const TimelineIndex& index) {
  QVector<TrackInfo> out;
  for (uint32_t cpu = 0; cpu < index.cpu_count(); ++cpu) {
    uint64_t n = index.SchedCountInRange(cpu, INT64_MIN, INT64_MAX);
    if (n == 0) continue;
    TrackInfo t;
    t.kind = TrackKind::kCpuSched;
    t.name = QStringLiteral("CPU %1").arg(cpu);
    t.cpu = cpu;
    t.rows = n;
    out.push_back(t);
  }
  return out;
}

// CPU time per thread (utid), from sched.
std::vector<int64_t> threadCpuNs(const TraceStorage& s) {
  std::vector<int64_t> thread_cpu(s.thread.row_count(), 0);
  for (uint32_t r = 0; r < s.sched.row_count(); ++r) {
    uint32_t utid = s.sched.utid[r];
    if (utid < thread_cpu.size() && s.sched.dur[r] > 0) thread_cpu[utid] += s.sched.dur[r];
  }
  return thread_cpu;
}

struct TracksByOwner {
  std::vector<uint32_t> cpu_counters, perf_counters, system_counters;
  std::map<uint32_t, std::vector<uint32_t>> process_counters;  // upid -> tracks
  std::map<uint32_t, std::vector<uint32_t>> process_slices;    // upid -> tracks
  std::map<uint32_t, std::vector<uint32_t>> thread_slices;     // utid -> tracks
  std::vector<uint32_t> global_slices;
};

// Counter and slice tracks with events, by owner.
TracksByOwner tracksByOwner(const TraceStorage& s, const TimelineIndex& index) {
  TracksByOwner o;
  const TrackTable& tr = s.track;
  const StringId counter_evt = s.strings.Find("counter");
  // linux.perf's per-CPU counters (the timebase and its followers) are not frequency or idle.
  const StringId perf_type = s.strings.Find("perf_cpu_counter");
  for (uint32_t id = 0; id < tr.row_count(); ++id) {
    bool is_counter = counter_evt != kNullStringId && tr.event_type[id] == counter_evt;
    if (is_counter) {
      if (index.CounterCount(id) == 0) continue;
      if (tr.cpu.Get(id)) {
        (perf_type != kNullStringId && tr.type[id] == perf_type ? o.perf_counters : o.cpu_counters)
            .push_back(id);
      } else if (auto upid = tr.upid.Get(id)) {
        o.process_counters[*upid].push_back(id);
      } else if (auto utid = tr.utid.Get(id); utid && threadUpid(s, *utid)) {
        o.process_counters[*threadUpid(s, *utid)].push_back(id);
      } else {
        o.system_counters.push_back(id);
      }
      continue;
    }
    if (index.SliceCount(id) == 0) continue;
    if (auto utid = tr.utid.Get(id)) {
      o.thread_slices[*utid].push_back(id);
    } else if (auto upid = tr.upid.Get(id)) {
      o.process_slices[*upid].push_back(id);
    } else {
      o.global_slices.push_back(id);
    }
  }
  // Per-CPU slice tracks ("Irq Cpu N", "SoftIrq Cpu N") come in the order their first event
  // was seen; like the other per-CPU groups they read by kind, then by CPU number (so CPU 10
  // follows CPU 9). Tracks of no CPU keep their order, ahead of them.
  std::stable_sort(o.global_slices.begin(), o.global_slices.end(), [&](uint32_t a, uint32_t b) {
    const auto ca = tr.cpu.Get(a), cb = tr.cpu.Get(b);
    if (ca.has_value() != cb.has_value()) return !ca.has_value();
    if (!ca) return false;
    if (tr.type[a] != tr.type[b]) return str(s, tr.type[a]) < str(s, tr.type[b]);
    return *ca < *cb;
  });
  return o;
}

TrackInfo makeCounterTrack(const TraceStorage& s, const TimelineIndex& index, uint32_t id,
                           const QString& prefix) {
  const TrackTable& tr = s.track;
  TrackInfo t;
  t.kind = TrackKind::kCounter;
  t.track_id = id;
  t.rows = index.CounterCount(id);
  QString name = str(s, tr.name[id]);
  QString type = str(s, tr.type[id]);
  if (name.isEmpty()) name = type.isEmpty() ? QStringLiteral("counter") : type;
  t.idle_states = type == QLatin1String("cpu_idle") || name == QLatin1String("cpuidle");
  t.name = prefix.isEmpty() ? name : prefix + QLatin1Char(' ') + name;
  return t;
}

TrackInfo makeSliceTrack(const TraceStorage& s, const TimelineIndex& index, uint32_t id,
                         const QString& fallback) {
  const TrackTable& tr = s.track;
  TrackInfo t;
  t.kind = TrackKind::kSlices;
  t.track_id = id;
  t.depths = std::max<uint32_t>(1, index.SliceDepthCount(id));
  t.rows = index.SliceCount(id);
  t.name = str(s, tr.name[id]);
  if (t.name.isEmpty()) t.name = fallback;
  for (auto p = tr.parent_id.Get(id); p && t.indent < 16; p = tr.parent_id.Get(*p)) ++t.indent;
  return t;
}

// A process's slice tracks of one name as one row (mergeByName), each track a part.
TrackInfo processSliceTrack(const TraceStorage& s, const TimelineIndex& index,
                            const QVector<uint32_t>& ids) {
  TrackInfo t = makeSliceTrack(s, index, ids.front(), QStringLiteral("process slices"));
  if (ids.size() < 2) return t;
  t.depths = 0;
  t.rows = 0;
  for (uint32_t id : ids) {
    const SlicePart part{id, std::max<uint32_t>(1, index.SliceDepthCount(id))};
    t.parts.push_back(part);
    t.depths += part.depths;
    t.rows += index.SliceCount(id);
  }
  // As deep as the most slices open at once, not one set of levels per track.
  if ((t.packed = packSlices(s, index, t.parts)))
    t.depths = std::max<quint32>(1, quint32(t.packed->levels.size()));
  return t;
}

// "mem.lmk" instants, wherever the importer put them, with the oom_score_adj in force.
TrackInfo lmkTrack(const TraceStorage& s, const TimelineIndex& index,
                   std::map<uint32_t, std::vector<uint32_t>>& process_counters) {
  const TrackTable& tr = s.track;
  TrackInfo t;
  t.kind = TrackKind::kInstants;
  t.name = QStringLiteral("Low memory kills");
  const StringId lmk = s.strings.Find("mem.lmk");
  if (lmk == kNullStringId) return t;
  const SliceTable& sl = s.slice;
  for (uint32_t row = 0; row < sl.row_count(); ++row) {
    if (sl.name[row] != lmk) continue;
    uint32_t track = sl.track_id[row];
    std::optional<uint32_t> upid = tr.upid.Get(track);
    if (!upid) {
      if (auto utid = tr.utid.Get(track)) upid = threadUpid(s, *utid);
    }
    TrackMarker m;
    m.ts = sl.ts[row];
    m.row = row;
    m.upid = upid ? *upid : -1;
    m.label = upid ? processLabel(s, *upid) : QStringLiteral("?");
    // oom_score_adj in force at the kill, from the process's counter track.
    if (upid) {
      for (uint32_t c : process_counters[*upid]) {
        if (str(s, tr.name[c]) != QLatin1String("oom_score_adj")) continue;
        auto b = index.CounterBuckets(c, m.ts, m.ts + 1, 1);
        if (b[0].has_value) m.label += QStringLiteral(" (oom_score_adj %1)").arg(b[0].last);
      }
    }
    t.markers.push_back(m);
  }
  t.rows = static_cast<quint64>(t.markers.size());
  return t;
}

// Per process, its dumps: (ts, 0 native heap profile / 1 Java heap graph).
std::map<uint32_t, std::set<std::pair<int64_t, int>>> dumpsByProcess(const TraceStorage& s) {
  std::map<uint32_t, std::set<std::pair<int64_t, int>>> dumps;
  const auto& hpa = s.profile.heap_profile_allocation;
  for (uint32_t r = 0; r < hpa.row_count(); ++r) dumps[hpa.upid[r]].insert({hpa.ts[r], 0});
  const auto& hgo = s.profile.heap_graph_object;
  for (uint32_t r = 0; r < hgo.row_count(); ++r)
    dumps[hgo.upid[r]].insert({hgo.graph_sample_ts[r], 1});
  return dumps;
}

TrackInfo heapTrack(uint32_t upid, const std::set<std::pair<int64_t, int>>& dumps,
                    const QVector<QPair<qint64, qint64>>& memory) {
  TrackInfo t;
  t.kind = TrackKind::kHeapDumps;
  t.name =
      memory.isEmpty() ? QStringLiteral("Heap dumps") : QStringLiteral("Heap memory (unreleased)");
  t.memory = memory;
  for (const auto& [ts, graph] : dumps)
    t.markers.push_back(
        {ts, graph ? QStringLiteral("Java heap graph") : QStringLiteral("native heap profile"),
         upid, graph ? QStringLiteral("graph") : QStringLiteral("native"), 0});
  t.rows = static_cast<quint64>(t.markers.size());
  return t;
}

// A process's slice tracks with one name and no parent become one row (the importer
// splits e.g. Expected / Actual Timeline into several tracks where frames overlap; Perfetto
// shows one of each per process). Order: first appearance.
QVector<QVector<uint32_t>> mergeByName(const TraceStorage& s, const std::vector<uint32_t>& ids) {
  QVector<QVector<uint32_t>> rows;
  QHash<StringId, int> by_name;
  for (uint32_t id : ids) {
    const StringId name = s.track.name[id];
    const bool mergeable = name != kNullStringId && !s.track.parent_id.Get(id);
    auto it = mergeable ? by_name.constFind(name) : by_name.constEnd();
    if (it != by_name.constEnd()) {
      rows[it.value()].push_back(id);
      continue;
    }
    if (mergeable) by_name.insert(name, int(rows.size()));
    rows.push_back({id});
  }
  return rows;
}

// Per process, the native heap profile's unreleased bytes at each dump: heap_profile_allocation
// rows are per-dump changes per call site (allocations positive, frees negative, as upstream
// stores continuous dumps), so the bytes held at a dump are the sum of every row up to it.
std::map<uint32_t, QVector<QPair<qint64, qint64>>> unreleasedBytesByDump(const TraceStorage& s) {
  std::map<uint32_t, std::map<int64_t, int64_t>> change;  // upid -> ts -> bytes
  const auto& hpa = s.profile.heap_profile_allocation;
  for (uint32_t r = 0; r < hpa.row_count(); ++r) change[hpa.upid[r]][hpa.ts[r]] += hpa.size[r];
  std::map<uint32_t, QVector<QPair<qint64, qint64>>> out;
  for (const auto& [upid, by_ts] : change) {
    int64_t held = 0;
    for (const auto& [ts, bytes] : by_ts) out[upid].push_back({ts, held += bytes});
  }
  return out;
}

}  // namespace

QPair<qint64, qint64> navigableBounds(const TrackLayout& layout, qint64 start, qint64 end) {
  bool heap = false;
  for (const TrackInfo& t : layout.tracks) {
    heap |= t.kind == TrackKind::kHeapDumps;
    for (const TrackMarker& m : t.markers) {
      start = std::min(start, m.ts);
      end = std::max(end, m.ts);
    }
    if (t.samples && !t.samples->ts.isEmpty()) {  // samples may lie outside the bounds too
      start = std::min(start, t.samples->ts.front());
      end = std::max(end, t.samples->ts.back());
    }
  }
  constexpr qint64 kPad = 1000000000;  // 1 s
  if (heap && end - start < kPad / 1000) {
    const qint64 mid = start + (end - start) / 2;
    return {mid - kPad, mid + kPad};
  }
  return {start, end};
}

bool TrackInfo::hasSliceTrack(quint32 id) const { return levelOf(id, 0) >= 0; }

int TrackInfo::levelOf(quint32 id, quint32 depth) const {
  if (kind != TrackKind::kSlices) return -1;
  int base = 0;
  for (const SlicePart& p : sliceParts()) {
    if (p.track_id == id) return base + int(std::min(depth, p.depths - 1));
    base += int(p.depths);
  }
  return -1;
}

int TrackInfo::levelOfSlice(quint32 row, quint32 id, quint32 depth) const {
  if (kind == TrackKind::kSlices && packed) return packed->level_of.value(row, -1);
  return levelOf(id, depth);
}

int TrackLayout::countKind(TrackKind kind) const {
  return static_cast<int>(std::count_if(tracks.begin(), tracks.end(),
                                        [kind](const TrackInfo& t) { return t.kind == kind; }));
}

int TrackLayout::stateTrack(quint32 utid) const {
  for (int i = 0; i < tracks.size(); ++i) {
    const TrackInfo& t = tracks[i];
    if ((t.kind == TrackKind::kThreadState && t.utid == utid) ||
        (t.hasStateStrip() && t.state_utid == qint64(utid)))
      return i;
  }
  return -1;
}

int TrackLayout::findGroup(GroupKind kind) const {
  for (int i = 0; i < groups.size(); ++i)
    if (groups[i].kind == kind) return i;
  return -1;
}

QString processLabel(const TraceStorage& s, uint32_t upid) {
  if (upid >= s.process.row_count()) return QStringLiteral("process %1").arg(upid);
  QString name = str(s, s.process.name[upid]);
  if (name.isEmpty()) name = str(s, s.process.cmdline[upid]);
  if (name.isEmpty()) name = QStringLiteral("process");
  return QStringLiteral("%1 %2").arg(name).arg(s.process.pid[upid]);
}

QString threadLabel(const TraceStorage& s, uint32_t utid) {
  if (utid >= s.thread.row_count()) return QStringLiteral("thread %1").arg(utid);
  QString name = str(s, s.thread.name[utid]);
  if (name.isEmpty()) name = QStringLiteral("thread");
  return QStringLiteral("%1 %2").arg(name).arg(s.thread.tid[utid]);
}

// The median of up to ~100 000 evenly spread non-idle slices: exact enough
// for a zoom threshold, and cheap on a trace with tens of millions.
double typicalSchedSliceNs(const TraceStorage& s) {
  const uint32_t n = s.sched.row_count();
  if (n == 0) return 0;
  const uint32_t stride = std::max<uint32_t>(1, n / 100000);
  std::vector<int64_t> durs;
  durs.reserve(n / stride + 1);
  for (uint32_t i = 0; i < n; i += stride)
    if (s.sched.utid[i] != 0 && s.sched.dur[i] > 0) durs.push_back(s.sched.dur[i]);
  if (durs.empty()) return 0;
  auto mid = durs.begin() + static_cast<std::ptrdiff_t>(durs.size() / 2);
  std::nth_element(durs.begin(), mid, durs.end());
  return static_cast<double>(*mid);
}

TrackLayout buildTrackLayout(const TraceStorage& s, const TimelineIndex& index, bool summaries) {
  TrackLayout out;
  auto addGroup = [&](GroupKind kind, const QString& name, qint64 upid = -1) {
    out.groups.push_back({kind, name, upid, {}, -1});
    return static_cast<int>(out.groups.size() - 1);
  };
  auto addTrack = [&](int group, TrackInfo t) {
    t.group = group;
    out.tracks.push_back(std::move(t));
    out.groups[group].tracks.push_back(static_cast<int>(out.tracks.size() - 1));
  };

  if (const QVector<TrackInfo> cpus = cpuTracks(index); !cpus.isEmpty()) {
    const int g = addGroup(GroupKind::kCpus, QStringLiteral("CPUs"));
    for (const TrackInfo& t : cpus) addTrack(g, t);
  }

  out.cpu_typical_slice_ns = typicalSchedSliceNs(s);
  out.frame_rows = frameRowsBySlice(s);

  const TrackTable& tr = s.track;
  TracksByOwner owners = tracksByOwner(s, index);
  auto& cpu_counters = owners.cpu_counters;
  auto& system_counters = owners.system_counters;
  auto& process_counters = owners.process_counters;
  auto& process_slices = owners.process_slices;
  auto& thread_slices = owners.thread_slices;
  const auto& global_slices = owners.global_slices;
  auto counterTrack = [&](uint32_t id, const QString& prefix) {
    return makeCounterTrack(s, index, id, prefix);
  };

  if (!cpu_counters.empty()) {
    // Frequency then idle, each by CPU: "CPU 0 cpufreq", "CPU 0 cpuidle"...
    std::stable_sort(cpu_counters.begin(), cpu_counters.end(), [&](uint32_t a, uint32_t b) {
      bool ia = str(s, tr.name[a]).contains(QLatin1String("idle"));
      bool ib = str(s, tr.name[b]).contains(QLatin1String("idle"));
      if (*tr.cpu.Get(a) != *tr.cpu.Get(b)) return *tr.cpu.Get(a) < *tr.cpu.Get(b);
      return ia < ib;
    });
    // Other per-CPU counters (sys_stats' cpu.times.*: eight per CPU) in a group of their own,
    // after it: among the frequency and idle tracks they pushed everything else far down.
    int freq = -1, other = -1;
    for (uint32_t id : cpu_counters) {
      TrackInfo t = counterTrack(id, QStringLiteral("CPU %1").arg(*tr.cpu.Get(id)));
      const bool freq_idle = isCpuFreqOrIdle(str(s, tr.name[id]), str(s, tr.type[id]));
      if (!freq_idle) t.idle_states = false;
      int& g = freq_idle ? freq : other;
      if (g < 0 && freq_idle)
        g = addGroup(GroupKind::kCpuFreqIdle, QStringLiteral("CPU frequency and idle"));
      if (g < 0 && !freq_idle) g = -2;  // added after the loop, below the frequency group
      if (g >= 0) addTrack(g, t);
    }
    if (other == -2) {
      other = addGroup(GroupKind::kCpuCounters, QStringLiteral("CPU counters"));
      for (uint32_t id : cpu_counters) {
        if (isCpuFreqOrIdle(str(s, tr.name[id]), str(s, tr.type[id]))) continue;
        TrackInfo t = counterTrack(id, QStringLiteral("CPU %1").arg(*tr.cpu.Get(id)));
        t.idle_states = false;
        addTrack(other, t);
      }
    }
  }
  if (!owners.perf_counters.empty()) {
    // Perf counters by CPU, then by name ("CPU 0 cpu-clock", "CPU 0 instructions", ...).
    auto& perf = owners.perf_counters;
    std::stable_sort(perf.begin(), perf.end(), [&](uint32_t a, uint32_t b) {
      if (*tr.cpu.Get(a) != *tr.cpu.Get(b)) return *tr.cpu.Get(a) < *tr.cpu.Get(b);
      return str(s, tr.name[a]) < str(s, tr.name[b]);
    });
    int g = addGroup(GroupKind::kPerfCounters, QStringLiteral("Perf counters"));
    for (uint32_t id : perf) {
      TrackInfo t = counterTrack(id, QStringLiteral("CPU %1").arg(*tr.cpu.Get(id)));
      t.idle_states = false;
      addTrack(g, t);
    }
  }
  if (!system_counters.empty()) {
    std::stable_sort(system_counters.begin(), system_counters.end(), [&](uint32_t a, uint32_t b) {
      return str(s, tr.name[a]) < str(s, tr.name[b]);
    });
    int g = addGroup(GroupKind::kSystemCounters, QStringLiteral("System counters"));
    for (uint32_t id : system_counters) addTrack(g, counterTrack(id, {}));
  }

  // LMK kills: "mem.lmk" instants, wherever the importer put them.
  if (TrackInfo t = lmkTrack(s, index, process_counters); !t.markers.isEmpty())
    addTrack(addGroup(GroupKind::kLmk, QStringLiteral("LMK")), t);
  auto sliceTrack = [&](uint32_t id, const QString& fallback) {
    return makeSliceTrack(s, index, id, fallback);
  };
  if (!global_slices.empty()) {
    int g = addGroup(GroupKind::kGlobal, QStringLiteral("Global tracks"));
    for (uint32_t id : global_slices) addTrack(g, sliceTrack(id, QStringLiteral("slices")));
  }

  // Heap dumps per process: one diamond per (upid, ts) dump.
  auto dumps = dumpsByProcess(s);
  const auto memory = unreleasedBytesByDump(s);

  // Threads per process, busiest first; processes busiest first.
  const std::vector<int64_t> thread_cpu = threadCpuNs(s);
  std::map<uint32_t, std::vector<uint32_t>> threads;  // upid -> utids with tracks
  std::vector<uint32_t> orphan_threads;
  const auto samples = samplesByThread(s);
  for (uint32_t utid = 1; utid < s.thread.row_count(); ++utid) {
    if (!index.HasThreadStates(utid) && !thread_slices.count(utid) && !samples.count(utid))
      continue;
    if (auto upid = threadUpid(s, utid)) {
      threads[*upid].push_back(utid);
    } else {
      orphan_threads.push_back(utid);
    }
  }
  std::vector<uint32_t> upids;
  std::vector<int64_t> process_cpu(s.process.row_count(), 0);
  for (uint32_t upid = 0; upid < s.process.row_count(); ++upid) {
    for (uint32_t utid : threads[upid]) process_cpu[upid] += thread_cpu[utid];
    if (threads[upid].empty() && !process_counters.count(upid) && !process_slices.count(upid) &&
        !dumps.count(upid))
      continue;
    upids.push_back(upid);
  }
  std::stable_sort(upids.begin(), upids.end(), [&](uint32_t a, uint32_t b) {
    if (process_cpu[a] != process_cpu[b]) return process_cpu[a] > process_cpu[b];
    return s.process.pid[a] < s.process.pid[b];
  });

  auto addThread = [&](int g, uint32_t utid) {
    QString label = threadLabel(s, utid);
    const auto& slice_tracks = thread_slices[utid];
    const bool states = index.HasThreadStates(utid);
    if (states && slice_tracks.empty()) {
      TrackInfo t;
      t.kind = TrackKind::kThreadState;
      t.utid = utid;
      t.name = label + QStringLiteral(" state");
      addTrack(g, t);
    }
    for (size_t i = 0; i < slice_tracks.size(); ++i) {
      TrackInfo t = sliceTrack(slice_tracks[i], label);
      // States and slices in one row: the states as a strip on the first slice track.
      if (states && i == 0) t.state_utid = utid;
      addTrack(g, t);
    }
    // Where its CPU samples fell (Perfetto's per-thread sample track).
    if (auto it = samples.find(utid); it != samples.end())
      for (const auto& set : it->second) {
        TrackInfo t;
        t.kind = TrackKind::kCpuSamples;
        t.utid = utid;
        t.name = label + (set->perf ? QStringLiteral(" CPU samples")
                                    : QStringLiteral(" CPU samples (in-process sampler)"));
        t.rows = quint64(set->ts.size());
        t.samples = set;
        addTrack(g, t);
      }
  };
  // A process whose threads ran or that has slices gets a summary (its activity later).
  auto addSummary = [&](int g, uint32_t upid) {
    TrackInfo t;
    t.kind = TrackKind::kProcessSummary;
    t.upid = upid;
    t.group = g;
    t.name = processLabel(s, upid) + QStringLiteral(" summary");
    bool slices = process_slices.count(upid) > 0;
    for (uint32_t utid : threads[upid]) {
      t.summary_threads += thread_cpu[utid] > 0;
      slices |= thread_slices.count(utid) > 0;
    }
    if (t.summary_threads == 0 && !slices) return;
    out.tracks.push_back(std::move(t));
    out.groups[g].summary = static_cast<int>(out.tracks.size() - 1);
  };
  for (uint32_t upid : upids) {
    int g = addGroup(GroupKind::kProcess, processLabel(s, upid), upid);
    auto& counters = process_counters[upid];
    std::stable_sort(counters.begin(), counters.end(), [&](uint32_t a, uint32_t b) {
      return str(s, tr.name[a]) < str(s, tr.name[b]);
    });
    for (uint32_t id : counters) addTrack(g, counterTrack(id, {}));
    if (dumps.count(upid)) {
      auto m = memory.find(upid);
      addTrack(g, heapTrack(upid, dumps[upid],
                            m != memory.end() ? m->second : QVector<QPair<qint64, qint64>>{}));
    }
    for (const QVector<uint32_t>& ids : mergeByName(s, process_slices[upid]))
      addTrack(g, processSliceTrack(s, index, ids));
    auto& utids = threads[upid];
    int64_t main_tid = s.process.pid[upid];
    std::stable_sort(utids.begin(), utids.end(), [&](uint32_t a, uint32_t b) {
      bool ma = s.thread.tid[a] == main_tid, mb = s.thread.tid[b] == main_tid;
      if (ma != mb) return ma;
      return thread_cpu[a] > thread_cpu[b];
    });
    for (uint32_t utid : utids) addThread(g, utid);
    addSummary(g, upid);
  }
  if (!orphan_threads.empty()) {
    int g = addGroup(GroupKind::kProcess, QStringLiteral("Threads without a process"));
    for (uint32_t utid : orphan_threads) addThread(g, utid);
  }
  if (summaries) {
    const QHash<int, TrackInfo> filled = processSummaries(out, s, index);
    for (auto it = filled.cbegin(); it != filled.cend(); ++it) out.tracks[it.key()] = it.value();
  }
  return out;
}

// Full height at as many running threads as the process has (at most one per CPU); without
// sched data, at its most open top-level slices.
QHash<int, TrackInfo> processSummaries(const TrackLayout& layout, const TraceStorage& s,
                                       const TimelineIndex& index) {
  QHash<int, TrackInfo> out;
  const ProcessActivity activity = buildProcessActivity(s);
  for (const TrackGroup& g : layout.groups) {
    if (g.summary < 0 || g.summary >= layout.tracks.size()) continue;
    TrackInfo t = layout.tracks[g.summary];
    if (t.upid < 0 || size_t(t.upid) >= activity.profiles.size()) continue;
    t.activity = std::make_shared<ActivityProfile>(activity.profiles[size_t(t.upid)]);
    t.activity_from_sched = activity.from_sched[size_t(t.upid)];
    const int most = t.activity->max_count();
    const int cpus = int(std::max(1u, index.cpu_count()));
    t.activity_scale =
        std::max(1, t.activity_from_sched ? std::min({t.summary_threads, cpus, most}) : most);
    out.insert(g.summary, std::move(t));
  }
  return out;
}

}  // namespace fathom::gui
