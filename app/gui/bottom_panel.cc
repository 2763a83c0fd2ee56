#include "app/gui/bottom_panel.h"

#include <QResizeEvent>
#include <QSettings>
#include <QSplitter>
#include <QTabBar>
#include <QTimer>
#include <QToolButton>

namespace fathom::gui {
namespace {
const char kHeightKey[] = "workspace/bottomPanelHeight";
const char kCollapsedKey[] = "workspace/bottomPanelCollapsed";
}  // namespace

BottomPanel::BottomPanel(QWidget* parent) : QTabWidget(parent) {
  setObjectName(QStringLiteral("bottomPanel"));
  setDocumentMode(true);
  // -1 until the user sizes it: then a share of the window, so a 4K screen gets a usable
  // flamegraph and 1024×700 keeps most rows for the timeline.
  expanded_height_ = QSettings().value(kHeightKey, -1).toInt();
  chevron_ = new QToolButton(this);
  chevron_->setObjectName(QStringLiteral("bottomPanelChevron"));
  chevron_->setAutoRaise(true);
  chevron_->setArrowType(Qt::DownArrow);
  chevron_->setToolTip(tr("Collapse / expand the panel (Ctrl+J)"));
  setCornerWidget(chevron_, Qt::TopRightCorner);
  connect(chevron_, &QToolButton::clicked, this, &BottomPanel::toggle);
  // A click on the tab already shown folds the panel, as in the Perfetto UI; any other tab
  // opens it.
  connect(tabBar(), &QTabBar::tabBarClicked, this, [this](int index) {
    if (index < 0) return;
    if (index == currentIndex())
      toggle();
    else if (collapsed_)
      setCollapsed(false);
  });
  // The splitter decides the height; the panel's own minimum is its tab bar so the
  // timeline can take (almost) everything.
  setMinimumHeight(collapsedHeight());
}

int BottomPanel::collapsedHeight() const {
  return std::max(tabBar()->sizeHint().height(), chevron_->sizeHint().height()) + 2;
}

bool BottomPanel::rememberedCollapsed() { return QSettings().value(kCollapsedKey, false).toBool(); }

void BottomPanel::attach(QSplitter* split) {
  split_ = split;
  // A taller window grows the timeline; the panel keeps its height (collapsed or not).
  split_->setStretchFactor(0, 1);
  split_->setStretchFactor(1, 0);
  connect(split_, &QSplitter::splitterMoved, this, &BottomPanel::onSplitterMoved);
  split_->installEventFilter(this);
}

void BottomPanel::setCollapsed(bool collapsed, bool remember) {
  if (remember) QSettings().setValue(kCollapsedKey, collapsed);
  if (collapsed == collapsed_) return applySizes();
  collapsed_ = collapsed;
  chevron_->setArrowType(collapsed ? Qt::UpArrow : Qt::DownArrow);
  applySizes();
  emit collapsedChanged(collapsed);
}

void BottomPanel::reveal(QWidget* w) {
  setCurrentWidget(w);
  if (collapsed_) setCollapsed(false, false);
}

void BottomPanel::expandTo(int h) {
  expanded_height_ = std::max(collapsedHeight() + 8, h);
  setCollapsed(false, false);
  applySizes();
}

void BottomPanel::applySizes() {
  if (!split_) return;
  const int total = split_->height() - split_->handleWidth();
  const int open = expanded_height_ > 0 ? expanded_height_ : std::max(200, total * 35 / 100);
  const int h = collapsed_ ? collapsedHeight() : std::min(open, total * 3 / 4);
  if (total <= 0) return;
  split_->setSizes({std::max(0, total - h), h});
}

void BottomPanel::onSplitterMoved() {
  const int h = split_->sizes().value(1, height());
  // Dragged down to the tab bar: that is collapsing it; dragged up from there, expanding.
  const bool at_bar = h <= collapsedHeight() + 4;
  if (at_bar != collapsed_) {
    collapsed_ = at_bar;
    chevron_->setArrowType(collapsed_ ? Qt::UpArrow : Qt::DownArrow);
    QSettings().setValue(kCollapsedKey, collapsed_);
    emit collapsedChanged(collapsed_);
  }
  if (collapsed_) return;
  expanded_height_ = h;
  QSettings().setValue(kHeightKey, h);
}

bool BottomPanel::eventFilter(QObject* watched, QEvent* event) {
  // Sizes set before the splitter was first laid out are lost: apply them once it has a
  // height. Until the user sizes the panel it keeps its share of the window, so a window
  // opened small and then maximised on a 4K screen does not keep a 1024×700-sized panel.
  if (watched == split_ && event->type() == QEvent::Resize &&
      (static_cast<QResizeEvent*>(event)->oldSize().height() <= 0 || expanded_height_ < 0))
    QTimer::singleShot(0, this, &BottomPanel::applySizes);
  return QTabWidget::eventFilter(watched, event);
}

}  // namespace fathom::gui
