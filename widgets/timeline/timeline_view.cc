#include "widgets/timeline/timeline_view.h"

namespace fathom::gui {

TimelineView::TimelineView(TraceSession* session, QWidget* parent) : QWidget(parent) {}

void TimelineView::setVisibleRange(qint64, qint64) {}
void TimelineView::setSelection(qint64, qint64) {}
}  // namespace fathom::gui
