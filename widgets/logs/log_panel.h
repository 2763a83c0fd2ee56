// PLACEHOLDER: replaced by the widget's real implementation.
#pragma once

#include <QWidget>

#include "widgets/common/trace_session.h"

namespace fathom::gui {

class LogPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LogPanel(TraceSession* session, QWidget* parent = nullptr);
  // Shows only the log lines in [t0, t1) (t0 == t1: all).
  void setTimeRange(qint64 t0, qint64 t1);
};

}  // namespace fathom::gui
