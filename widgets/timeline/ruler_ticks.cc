#include "widgets/timeline/ruler_ticks.h"

#include <algorithm>

#include "widgets/common/format.h"

namespace fathom::gui {
namespace {

struct TickUnit {
  qint64 ns;
  const char* name;
  int decimals;
};

// The unit of the step ("ms" for 50 ms steps, "us" for 200 us) with enough
// decimals that neighbouring labels differ.
TickUnit unitOf(qint64 step) {
  static const TickUnit kUnits[] = {
      {1000000000, "s", 0}, {1000000, "ms", 0}, {1000, "us", 0}, {1, "ns", 0}};
  TickUnit u = kUnits[3];
  for (const TickUnit& c : kUnits)
    if (step >= c.ns / 10 * 2 || c.ns == 1) {
      u = c;
      break;
    }
  for (qint64 d = u.ns; d > step && u.decimals < 3; d /= 10) ++u.decimals;
  return u;
}

QString inUnit(qint64 v, const TickUnit& u) {
  return QString::number(static_cast<double>(v) / static_cast<double>(u.ns), 'f', u.decimals) +
         QLatin1Char(' ') + QLatin1String(u.name);
}

qint64 niceStep(double target) {
  double step = 1;
  while (step < target) {
    if (step * 2 >= target) return static_cast<qint64>(step * 2);
    if (step * 5 >= target) return static_cast<qint64>(step * 5);
    step *= 10;
  }
  return std::max<qint64>(1, static_cast<qint64>(step));
}

}  // namespace

RulerTicks computeRulerTicks(qint64 start, qint64 t0, qint64 t1, int width_px, int min_gap_px) {
  RulerTicks out;
  if (t1 <= t0 || width_px <= 0) return out;
  const double ns_per_px = static_cast<double>(t1 - t0) / width_px;
  out.step = niceStep(ns_per_px * min_gap_px);
  const TickUnit unit = unitOf(out.step);
  qint64 first = start + ((t0 - start) / out.step) * out.step;
  if (first < t0) first += out.step;
  // Plain offsets while the largest one still reads at a glance (< 10000 of
  // the unit); beyond, offsets from the first tick.
  const bool anchored = (t1 - start) / unit.ns >= 10000;
  if (anchored) out.anchor = QStringLiteral("from ") + formatTimestamp(first - start, out.step);
  for (qint64 t = first; t <= t1; t += out.step) {
    const QString label =
        anchored ? QLatin1Char('+') + inUnit(t - first, unit) : inUnit(t - start, unit);
    out.ticks.push_back({t, label});
  }
  return out;
}

}  // namespace fathom::gui
