// The timeline's tracks, in the order the user sees them: CPUs, CPU frequency
// and idle, system counters, LMK kills, global slice tracks, then one group per
// process (its counters, heap dumps, and per thread the thread state and the
// slice track). Built once per trace on the worker from the column tables; the
// UI thread only reads the finished layout.
#pragma once

#include <QHash>
#include <QString>
#include <QVector>
#include <cstdint>

namespace fathom {
class TraceStorage;
class TimelineIndex;
}  // namespace fathom

namespace fathom::gui {

enum class TrackKind { kCpuSched, kCounter, kInstants, kHeapDumps, kThreadState, kSlices };
enum class GroupKind { kCpus, kCpuFreqIdle, kSystemCounters, kLmk, kGlobal, kProcess };

// A point event drawn as a marker (LMK kill) or a diamond (heap dump).
struct TrackMarker {
  qint64 ts = 0;
  QString label;
  qint64 upid = -1;
  QString kind;  // heap dumps: "native" or "graph"
  quint32 row = 0;
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
};

struct TrackGroup {
  GroupKind kind = GroupKind::kProcess;
  QString name;
  qint64 upid = -1;
  QVector<int> tracks;  // indexes into TrackLayout::tracks
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
};

// Display names shared by the layout, the painter and the details panel.
QString processLabel(const TraceStorage& storage, uint32_t upid);
QString threadLabel(const TraceStorage& storage, uint32_t utid);

TrackLayout buildTrackLayout(const TraceStorage& storage, const TimelineIndex& index);

}  // namespace fathom::gui
