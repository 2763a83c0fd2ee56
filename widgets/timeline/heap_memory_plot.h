// The process memory track of a native heap profile: unreleased bytes at each dump, drawn
// as a step area (what a dump holds stays until the next one) with a marker per dump.
#pragma once

#include <QPainter>
#include <QRect>
#include <functional>

#include "widgets/timeline/track_layout.h"

namespace fathom::gui {

// `x_at` maps a timestamp to a widget x; `text` is the label colour.
void paintHeapMemory(QPainter& p, const TrackInfo& track, const QRect& area,
                     const std::function<double(qint64)>& x_at, const QColor& text);

}  // namespace fathom::gui
