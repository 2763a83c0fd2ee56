#include "widgets/timeline/heap_memory_plot.h"

#include <QPainterPath>
#include <algorithm>

#include "widgets/common/format.h"

namespace fathom::gui {

void paintHeapMemory(QPainter& p, const TrackInfo& t, const QRect& area,
                     const std::function<double(qint64)>& x_at, const QColor& text) {
  if (t.memory.isEmpty()) return;
  qint64 most = 1;
  for (const auto& [ts, bytes] : t.memory) most = std::max(most, bytes);
  const QColor line(0xf5, 0x7c, 0x00);
  QColor fill = line;
  fill.setAlpha(70);
  const int top = area.top() + 12, bottom = area.bottom() - 1;  // room for the label
  auto y_of = [&](qint64 bytes) {
    return bottom - double(std::max<qint64>(bytes, 0)) / double(most) * (bottom - top);
  };
  // The steps, clipped by the painter: each dump's bytes held until the next dump.
  QPainterPath steps;
  const double x0 = x_at(t.memory.front().first);
  steps.moveTo(x0, bottom);
  for (int i = 0; i < t.memory.size(); ++i) {
    const double x = x_at(t.memory[i].first), y = y_of(t.memory[i].second);
    const double next = i + 1 < t.memory.size() ? x_at(t.memory[i + 1].first) : x + 6;
    steps.lineTo(x, y);
    steps.lineTo(next, y);
  }
  steps.lineTo(steps.currentPosition().x(), bottom);
  steps.closeSubpath();
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  p.fillPath(steps, fill);
  p.setPen(QPen(line, 1.5));
  p.drawPath(steps);
  // A diamond per dump, on the curve: where a click opens that dump.
  for (const auto& [ts, bytes] : t.memory) {
    const double x = x_at(ts);
    if (x < area.left() - 6 || x > area.right() + 6) continue;
    const QPointF c(x, y_of(bytes));
    QPainterPath d;
    d.moveTo(c.x(), c.y() - 4);
    d.lineTo(c.x() + 4, c.y());
    d.lineTo(c.x(), c.y() + 4);
    d.lineTo(c.x() - 4, c.y());
    d.closeSubpath();
    p.fillPath(d, line.darker(130));
  }
  p.restore();
  p.setPen(text);
  p.drawText(area.adjusted(4, 0, 0, 0), Qt::AlignTop | Qt::AlignLeft,
             QStringLiteral("max %1 unreleased").arg(formatBytes(double(most))));
}

}  // namespace fathom::gui
