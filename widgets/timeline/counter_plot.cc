#include "widgets/timeline/counter_plot.h"

#include <qcustomplot.h>

namespace fathom::gui {

CounterPlotter::CounterPlotter() : plot_(std::make_unique<QCustomPlot>()) {
  QCustomPlot* p = plot_.get();
  p->setAttribute(Qt::WA_DontShowOnScreen);
  p->axisRect()->setAutoMargins(QCP::msNone);
  p->axisRect()->setMargins(QMargins(0, 0, 0, 0));
  p->xAxis->setVisible(false);
  p->yAxis->setVisible(false);
  p->xAxis->grid()->setVisible(false);
  p->yAxis->grid()->setVisible(false);
  p->setBackground(Qt::transparent);
  p->axisRect()->setBackground(Qt::transparent);
  QCPGraph* lo = p->addGraph();    // 0: envelope min
  QCPGraph* hi = p->addGraph();    // 1: envelope max, filled down to min
  QCPGraph* line = p->addGraph();  // 2: value in force
  for (QCPGraph* g : {lo, hi, line}) g->setLineStyle(QCPGraph::lsStepLeft);
  hi->setChannelFillGraph(lo);
}

CounterPlotter::~CounterPlotter() = default;

QPixmap CounterPlotter::render(const TrackPaint& paint, const QSize& size, const QColor& color) {
  QCustomPlot* p = plot_.get();
  const int n = static_cast<int>(paint.buckets.size());
  QVector<double> x, lo, hi, v;
  x.reserve(n + 1);
  bool envelope = false;
  for (int i = 0; i < n; ++i) {
    const CounterBucket& b = paint.buckets[i];
    if (!b.has_value) continue;
    x << i;
    lo << b.min;
    hi << b.max;
    v << b.last;
    envelope |= b.min != b.max;
  }
  if (!x.isEmpty()) {  // hold the last value to the right edge
    x << n;
    lo << lo.back();
    hi << hi.back();
    v << v.back();
  }
  QColor fill = color;
  fill.setAlpha(90);
  p->graph(0)->setData(x, lo, true);
  p->graph(1)->setData(x, hi, true);
  p->graph(0)->setPen(Qt::NoPen);
  p->graph(1)->setPen(Qt::NoPen);
  p->graph(1)->setBrush(envelope ? QBrush(fill) : Qt::NoBrush);
  p->graph(0)->setVisible(envelope);
  p->graph(1)->setVisible(envelope);
  p->graph(2)->setData(x, v, true);
  p->graph(2)->setPen(QPen(color.darker(130), 1.2));
  QColor area = color;
  area.setAlpha(60);
  p->graph(2)->setBrush(QBrush(area));  // filled down to the axis baseline
  double span = paint.vmax - paint.vmin;
  double lo_y = std::min(0.0, paint.vmin);
  double hi_y = paint.vmax + (span > 0 ? span : std::max(1.0, std::abs(paint.vmax))) * 0.08;
  p->xAxis->setRange(0, std::max(1, n));
  p->yAxis->setRange(lo_y, hi_y);
  return p->toPixmap(size.width(), size.height());
}

}  // namespace fathom::gui
