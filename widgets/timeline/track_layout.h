// The timeline's tracks, in the order the user sees them: CPUs, CPU frequency
// and idle, system counters, LMK kills, global slice tracks, then one group per
// process (its counters, heap dumps, and per thread the thread state and the
// slice track). Built once per trace on the worker from the column tables; the
// UI thread only reads the finished layout.
#pragma once

#include <QHash>
#include <QPair>
#include <QString>
#include <QVector>
#include <cstdint>
#include <memory>

namespace fathom {
class TraceStorage;
class TimelineIndex;
}  // namespace fathom

namespace fathom::gui {

class ActivityProfile;

// kProcessSummary is never a row of its own: a collapsed process's header row draws it.
enum class TrackKind {
  kCpuSched,
  kCounter,
  kInstants,
  kHeapDumps,
  kThreadState,
  kSlices,
  kProcessSummary,
  kCpuSamples
};
enum class GroupKind {
  kCpus,
  kCpuFreqIdle,
  kCpuCounters,
  kPerfCounters,
  kSystemCounters,
  kLmk,
  kGlobal,
  kProcess
};

// A point event drawn as a marker (LMK kill) or a diamond (heap dump).
struct TrackMarker {
  qint64 ts = 0;
  QString label;
  qint64 upid = -1;
  QString kind;  // heap dumps: "native" or "graph"
  quint32 row = 0;
};

// One slice track drawn in a row; a row may stack several (a process's tracks of one name,
// such as its Expected / Actual Timeline tracks, which the importer splits where frames
// overlap), each part's levels below the previous part's.
struct SlicePart {
  quint32 track_id = 0;
  quint32 depths = 1;
};

// A merged row's slices laid out by overlap (the fewest levels that hold them): each
// top-level slice with its descendants takes the lowest levels free at its start, so
// frames that never overlap share level 0 whatever track the importer put them on.
struct PackedSlices {
  QVector<QVector<quint32>> levels;  // slice rows per level, in ts order, disjoint
  QHash<quint32, int> level_of;      // slice row -> level
};

// A thread's CPU samples (perf_sample or cpu_profile_stack_sample rows), in ts order.
struct ThreadSamples {
  bool perf = true;  // perf_sample (else cpu_profile_stack_sample)
  QVector<qint64> ts;
  QVector<quint32> rows;
};

struct TrackInfo {
  TrackKind kind = TrackKind::kSlices;
  QString name;
  int group = 0;
  quint32 cpu = 0;               // kCpuSched
  quint32 utid = 0;              // kThreadState
  quint32 track_id = 0;          // kCounter, kSlices
  quint32 depths = 1;            // kSlices: nesting levels
  quint64 rows = 0;              // events on the track (sched slices, samples, slices)
  bool idle_states = false;      // cpuidle counter: drawn as grey state bands
  int indent = 0;                // nesting under parent tracks (TrackEvent hierarchies)
  QVector<TrackMarker> markers;  // kInstants, kHeapDumps
  // kHeapDumps: the native profile's unreleased bytes at each of its dumps (ts, bytes),
  // plotted over time; empty without a native profile.
  QVector<QPair<qint64, qint64>> memory;
  // kSlices: the parts stacked in this row (empty: just track_id with `depths` levels).
  QVector<SlicePart> parts;
  // kSlices with several parts: their slices packed by overlap (`depths` levels); null when
  // the parts are too many slices to pack (then each part keeps its own levels).
  std::shared_ptr<const PackedSlices> packed;
  // kCpuSamples (utid is the thread): where its samples fell.
  std::shared_ptr<const ThreadSamples> samples;
  // kSlices: the thread whose states are drawn as a thin strip on top of the slices (a
  // thread with both takes one row, as in Perfetto); -1: none.
  qint64 state_utid = -1;
  // kProcessSummary: the process, its activity and the count drawn full height.
  qint64 upid = -1;
  std::shared_ptr<const ActivityProfile> activity;
  bool activity_from_sched = false;
  int activity_scale = 1;
  int summary_threads = 0;  // threads that ran (the scale's cap with sched data)

  QVector<SlicePart> sliceParts() const {
    return parts.isEmpty() ? QVector<SlicePart>{{track_id, depths}} : parts;
  }
  bool hasSliceTrack(quint32 id) const;
  int levelOf(quint32 id, quint32 depth) const;  // row level of a part's depth; -1: not here
  // Row level of slice `row` (on track `id` at `depth`): its packed level when packed.
  int levelOfSlice(quint32 row, quint32 id, quint32 depth) const;
  bool hasStateStrip() const { return kind == TrackKind::kSlices && state_utid >= 0; }
};

struct TrackGroup {
  GroupKind kind = GroupKind::kProcess;
  QString name;
  qint64 upid = -1;
  QVector<int> tracks;  // indexes into TrackLayout::tracks
  int summary = -1;     // kProcessSummary track drawn on the header while collapsed
};

struct TrackLayout {
  QVector<TrackGroup> groups;
  QVector<TrackInfo> tracks;
  // Median duration of a scheduling slice over all CPUs (idle excluded):
  // the CPU tracks draw slices once a typical one is a pixel wide, the same
  // rule for every CPU at a given zoom (cpuSlicesVisible).
  double cpu_typical_slice_ns = 0;
  // Slices that are Android FrameTimeline frames: slice row -> frame row
  // (coloured by jank, with the frame's fields in details).
  QHash<quint32, quint32> frame_rows;
  int countKind(TrackKind kind) const;
  int findGroup(GroupKind kind) const;  // -1 when absent
  // The track that draws `utid`'s states: its state track or the slice track with its
  // state strip; -1 when none.
  int stateTrack(quint32 utid) const;
};

// Display names shared by the layout, the painter and the details panel.
QString processLabel(const TraceStorage& storage, uint32_t upid);
QString threadLabel(const TraceStorage& storage, uint32_t utid);

// `summaries`: also compute the collapsed processes' activity (else the summary tracks are
// there, empty, until attachProcessSummaries: the window does that as a second job so the
// first paint does not wait for it).
TrackLayout buildTrackLayout(const TraceStorage& storage, const TimelineIndex& index,
                             bool summaries = true);
// The summary tracks of `layout` with their activity (track index -> track).
QHash<int, TrackInfo> processSummaries(const TrackLayout& layout, const TraceStorage& storage,
                                       const TimelineIndex& index);

// The range the timeline can show: the trace's bounds, widened to every marker and CPU
// sample (heap dumps and samples may lie outside them), and, for a heap profile whose dumps span
// under a millisecond (one dump), padded to a second each side so the ruler reads in ms rather than
// in ns.
QPair<qint64, qint64> navigableBounds(const TrackLayout& layout, qint64 start, qint64 end);

}  // namespace fathom::gui
