// The ruler's one labelling rule (issue 29 item 7): plain offsets near the
// trace start, offsets from a named anchor deep into a long trace, never a
// mix of both on one ruler.
#include "widgets/timeline/ruler_ticks.h"

#include <QtTest>

using namespace fathom::gui;

class RulerTicksTest : public QObject {
  Q_OBJECT
 private slots:
  void nearTheStartLabelsAreOffsets();
  void deepIntoATraceLabelsCountFromTheAnchor();
  void theWindowThatMixedLabelsBefore();
  void ticksAreEvenlySpacedAndInside();
};

void RulerTicksTest::nearTheStartLabelsAreOffsets() {
  const RulerTicks r = computeRulerTicks(0, 1'000'000'000, 1'500'000'000, 800);
  QVERIFY(r.anchor.isEmpty());
  QVERIFY(r.ticks.size() >= 4);
  QCOMPARE(r.ticks.front().label, QStringLiteral("1000 ms"));
  for (const RulerTick& t : r.ticks) QVERIFY(!t.label.startsWith('+'));
}

void RulerTicksTest::deepIntoATraceLabelsCountFromTheAnchor() {
  // 2 h into a trace, a 2 ms window: relative labels in ms, the anchor in s.
  const qint64 start = 5'000'000'000;
  const qint64 t0 = start + 7'200'000'000'000;
  const RulerTicks r = computeRulerTicks(start, t0, t0 + 2'000'000, 1000);
  QCOMPARE(r.anchor, QStringLiteral("from 7200.0000 s"));
  QCOMPARE(r.ticks.front().label, QStringLiteral("+0.0 ms"));  // 200 us steps read as 0.2 ms
  for (const RulerTick& t : r.ticks) QVERIFY2(t.label.startsWith('+'), qPrintable(t.label));
}

// The window the issue names: 9.9 s .. 10.4 s gave "9950 ms +200 ms +250 ms".
void RulerTicksTest::theWindowThatMixedLabelsBefore() {
  const RulerTicks r = computeRulerTicks(0, 9'900'000'000, 10'400'000'000, 800);
  int plus = 0;
  for (const RulerTick& t : r.ticks) plus += t.label.startsWith('+');
  QVERIFY(plus == 0 || plus == r.ticks.size());
  QCOMPARE(plus, int(r.ticks.size()));
  QCOMPARE(r.anchor, QStringLiteral("from 9.9 s"));
}

void RulerTicksTest::ticksAreEvenlySpacedAndInside() {
  const qint64 t0 = 123'456'789, t1 = 987'654'321;
  const RulerTicks r = computeRulerTicks(0, t0, t1, 640);
  QVERIFY(r.ticks.size() >= 2);
  for (int i = 0; i < r.ticks.size(); ++i) {
    QVERIFY(r.ticks[i].ts >= t0 && r.ticks[i].ts <= t1);
    if (i) QCOMPARE(r.ticks[i].ts - r.ticks[i - 1].ts, r.step);
  }
  // Labels at least 110 px apart at this width.
  QVERIFY(double(r.step) * 640 / double(t1 - t0) >= 110);
}

QTEST_GUILESS_MAIN(RulerTicksTest)
#include "ruler_ticks_test.moc"
