// Where the time ruler's ticks go and what they say. One labelling rule for
// the whole ruler: near the trace start every tick shows its offset from the
// start ("9950 ms", "10000 ms"); deep into a long trace the ticks show the
// distance from an anchor ("+0 ms", "+50 ms") and the anchor itself is named
// once, at the ruler's left ("from 9.950 s"), so no two kinds of label mix.
#pragma once

#include <QString>
#include <QVector>

namespace fathom::gui {

struct RulerTick {
  qint64 ts;  // trace time of the tick
  QString label;
};

struct RulerTicks {
  qint64 step = 1;  // ns between ticks (1-2-5 steps)
  QVector<RulerTick> ticks;
  QString anchor;  // empty when the labels are plain offsets from the start
};

// Ticks for the window [t0, t1] of a trace starting at `start`, drawn over
// `width_px` pixels, labels at least `min_gap_px` apart.
RulerTicks computeRulerTicks(qint64 start, qint64 t0, qint64 t1, int width_px,
                             int min_gap_px = 110);

}  // namespace fathom::gui
