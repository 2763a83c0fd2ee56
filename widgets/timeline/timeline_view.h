// PLACEHOLDER: replaced by the widget's real implementation.
#pragma once

#include <QWidget>

#include "widgets/common/trace_session.h"

namespace fathom::gui {

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineView(TraceSession* session, QWidget* parent = nullptr);
  // Shows [t0, t1) (trace-clock ns) / selects it (as a drag would).
  void setVisibleRange(qint64 t0, qint64 t1);
  void setSelection(qint64 t0, qint64 t1);

 signals:
  // A heap-dump diamond was clicked. kind: "native" or "graph" (Java heap graph).
  void heapProfileActivated(qint64 upid, qint64 ts, const QString& kind);
  // The time selection changed (t0 == t1: cleared); cpus: CPU tracks inside it.
  void selectionChanged(qint64 t0, qint64 t1, const QList<int>& cpus);
};

}  // namespace fathom::gui
