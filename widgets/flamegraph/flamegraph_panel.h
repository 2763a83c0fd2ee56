// PLACEHOLDER: replaced by the widget's real implementation.
#pragma once

#include <QWidget>

#include "widgets/common/trace_session.h"

namespace fathom::gui {

class FlamegraphPanel : public QWidget {
  Q_OBJECT
 public:
  explicit FlamegraphPanel(TraceSession* session, QWidget* parent = nullptr);
  // Opens the dump (upid, ts); kind as TimelineView::heapProfileActivated.
  void showHeapProfile(qint64 upid, qint64 ts, const QString& kind);
  // CPU stack samples in [t0, t1) (all CPUs when cpus is empty).
  void showCpuSamples(qint64 t0, qint64 t1, const QList<int>& cpus);
};

}  // namespace fathom::gui
