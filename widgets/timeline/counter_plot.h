// Counter tracks drawn by QCustomPlot into a pixmap that the canvas caches per
// frame: a step line of the value in force, and when several samples share a
// pixel column, the min/max envelope behind it.
#pragma once

#include <QPixmap>
#include <memory>

#include "widgets/timeline/timeline_data.h"

class QCustomPlot;

namespace fathom::gui {

class CounterPlotter {
 public:
  CounterPlotter();
  ~CounterPlotter();
  QPixmap render(const TrackPaint& paint, const QSize& size, const QColor& color);

 private:
  std::unique_ptr<QCustomPlot> plot_;
};

}  // namespace fathom::gui
