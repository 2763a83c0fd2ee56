#include "widgets/logs/log_panel.h"

namespace fathom::gui {

LogPanel::LogPanel(TraceSession* session, QWidget* parent) : QWidget(parent) {}

void LogPanel::setTimeRange(qint64, qint64) {}
}  // namespace fathom::gui
