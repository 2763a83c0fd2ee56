// Issue 29: the Record page's source column scrolled sideways at 1024 px. At 1024×700 (less
// a menu bar) no scroll area of the page may need a horizontal scroll bar, the sources form
// must get at least its minimum width, and every visible widget must lie inside the page.
#include <QAbstractScrollArea>
#include <QDir>
#include <QScrollArea>
#include <QScrollBar>
#include <QtTest>

#include "widgets/record/record_page.h"

using namespace fathom::gui;

class RecordPageLayoutTest : public QObject {
  Q_OBJECT
 private slots:
  void nothingScrollsSidewaysAt1024();
};

void RecordPageLayoutTest::nothingScrollsSidewaysAt1024() {
  RecordPage page;
  page.resize(1024, 670);
  page.show();
  QVERIFY(QTest::qWaitForWindowExposed(&page));
  // The local target's probe fills the command line; give it a moment (it may not finish).
  QSignalSpy probed(&page, &RecordPage::probeFinished);
  probed.wait(5000);
  QTest::qWait(100);
  QVERIFY2(page.minimumSizeHint().width() <= 1024,
           qPrintable(QString::number(page.minimumSizeHint().width())));
  QCOMPARE(page.width(), 1024);
  auto* sources = page.findChild<QScrollArea*>(QStringLiteral("sourcesScroll"));
  QVERIFY(sources && sources->widget());
  QVERIFY2(sources->widget()->width() >= sources->widget()->minimumSizeHint().width(),
           qPrintable(QStringLiteral("form %1 px, needs %2")
                          .arg(sources->widget()->width())
                          .arg(sources->widget()->minimumSizeHint().width())));
  for (QAbstractScrollArea* a : page.findChildren<QAbstractScrollArea*>())
    QVERIFY2(!a->horizontalScrollBar()->isVisible(), qPrintable(a->metaObject()->className()));
  for (QWidget* w : page.findChildren<QWidget*>()) {
    if (!w->isVisible() || w->window() != &page) continue;
    if (w->parentWidget() && qobject_cast<QScrollArea*>(w->parentWidget()->parentWidget()))
      continue;  // the form itself scrolls vertically inside its viewport
    const QRect r(w->mapTo(&page, QPoint(0, 0)), w->size());
    QVERIFY2(r.left() >= 0 && r.right() < page.width(),
             qPrintable(QStringLiteral("%1 %2 at x %3..%4")
                            .arg(w->metaObject()->className(), w->objectName())
                            .arg(r.left())
                            .arg(r.right())));
  }
  QDir().mkpath(QStringLiteral(FATHOM_SCREENSHOT_DIR));
  page.grab().save(QStringLiteral(FATHOM_SCREENSHOT_DIR "/record_page_1024.png"));
}

QTEST_MAIN(RecordPageLayoutTest)
#include "record_page_layout_test.moc"
