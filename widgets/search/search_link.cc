#include "widgets/search/search_link.h"

#include <QObject>

#include "widgets/search/search_box.h"
#include "widgets/timeline/timeline_view.h"

namespace fathom::gui {

void linkSearchToTimeline(SearchBox* box, TimelineView* timeline) {
  QObject::connect(box, &SearchBox::matchSelected, timeline, [timeline](const SearchMatch& m) {
    const TrackKind kind =
        m.kind == SearchMatch::Kind::kSched ? TrackKind::kCpuSched : TrackKind::kSlices;
    timeline->revealEvent(kind, m.ref, m.row, m.ts, m.dur);
  });
  QObject::connect(box, &SearchBox::matchesChanged, timeline,
                   [timeline](const QVector<qint64>& ts) { timeline->setSearchMarks(ts); });
  QObject::connect(box, &SearchBox::dismissed, timeline,
                   [timeline] { timeline->setFocus(Qt::ShortcutFocusReason); });
}

}  // namespace fathom::gui
