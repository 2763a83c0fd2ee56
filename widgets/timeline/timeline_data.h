// What the canvas paints and the details panel shows, computed on the
// session's worker lanes (never on the UI thread) from TimelineIndex lookups:
// at most a few spans per pixel column per track, whatever the trace size.
#pragma once

#include <QColor>
#include <QHash>
#include <QList>
#include <QPair>
#include <QString>
#include <QVector>

#include "core/storage/timeline_index.h"
#include "widgets/timeline/track_layout.h"

namespace fathom::gui {

struct PaintSpan {
  qint64 start = 0, end = 0;
  quint32 row = 0, merged = 0;
  QRgb color = 0;
  QString label;  // only for spans wide enough to show it
};

struct TrackPaint {
  QVector<QVector<PaintSpan>> levels;  // sched/thread state: 1 level; slices: per depth
  QVector<PaintSpan> states;           // slices with a state strip: the thread's states
  QVector<float> utilization;          // CPU tracks zoomed out: busy fraction per pixel;
                                       // process summaries: running threads per pixel
  QVector<CounterBucket> buckets;      // counters: one per pixel
  double vmin = 0, vmax = 0;           // counters: value range in view
};

struct FrameRequest {
  qint64 t0 = 0, t1 = 0;
  int pixels = 0;
  QVector<int> tracks;  // indexes into the layout
};

struct FrameData {
  FrameRequest request;
  QHash<int, TrackPaint> tracks;
};

// Whether CPU tracks draw slices (else utilisation bars) at this zoom: the
// same answer for every CPU.
bool cpuSlicesVisible(const TrackLayout& layout, double ns_per_px);

FrameData fetchFrame(const TraceStorage& storage, const TimelineIndex& index,
                     const TrackLayout& layout, const FrameRequest& request);

// Area selection aggregates (query lane: may walk the rows in range).
struct SelectionStats {
  qint64 t0 = 0, t1 = 0;
  QList<int> cpus;
  QList<int> utids;  // threads whose state or slice tracks are selected
  struct ThreadTime {
    qint64 upid = -1, utid = 0;
    QString process, thread;
    qint64 ns = 0;
  };
  QVector<ThreadTime> threads;               // CPU time per thread, largest first
  QVector<QPair<qint64, qint64>> processes;  // (upid, ns), largest first; upid -1 = none
  QHash<qint64, QString> processNames;
  struct CounterStats {
    QString name;
    qint64 count = 0;
    double min = 0, max = 0, avg = 0, delta = 0;
  };
  QVector<CounterStats> counters;
  // Thread state tracks: time per state (clipped to the selection), largest first, with the
  // threads that spent it.
  struct StateTime {
    QString state;  // readable ("Runnable (Preempted)"), from thread_state.state
    qint64 ns = 0, count = 0;
    QVector<QPair<QString, qint64>> threads;  // (thread label, ns), largest first
  };
  QVector<StateTime> states;
  int stateTracks = 0;
  // Slice tracks: per slice name, occurrences overlapping the selection and wall time inside it.
  struct SliceTime {
    QString name;
    qint64 count = 0, wallNs = 0;
  };
  QVector<SliceTime> slices;
  int sliceTracks = 0;
};

// "R+" -> "Runnable (Preempted)", as Perfetto labels thread_state.state; unknown codes as is.
QString threadStateLabel(const QString& code);

SelectionStats computeSelection(const TraceStorage& storage, const TimelineIndex& index,
                                const TrackLayout& layout, qint64 t0, qint64 t1,
                                const QVector<int>& tracks);

// Click details: (field, value) pairs for the details panel.
// One end of a flow arrow: a slice, where the arrow leaves (its end) or arrives (its start).
struct FlowEnd {
  quint32 slice = 0, track_id = 0, depth = 0;
  qint64 ts = 0;  // end of the source slice, start of the destination slice
  QString name;
};
struct FlowLink {
  FlowEnd from, to;
  bool outgoing = true;  // from the clicked slice (else into it)
};

struct Details {
  QString title;
  QVector<QPair<QString, QString>> fields;
  QVector<FlowLink> flows;  // slices: flows into and out of the clicked slice
};
// `row` is the span's row (sched / thread_state / slice); for counters and
// markers, `ts` is the clicked time.
Details computeDetails(const TraceStorage& storage, const TimelineIndex& index,
                       const TrackInfo& track, quint32 row, qint64 ts, qint64 trace_start);

QRgb threadStateColor(QStringView state);

}  // namespace fathom::gui
