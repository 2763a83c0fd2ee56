#include "widgets/flamegraph/caller_tables.h"

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QResizeEvent>
#include <QStyle>
#include <QTabBar>
#include <QTableView>
#include <QTextDocumentFragment>
#include <QVBoxLayout>

#include "widgets/flamegraph/caller_model.h"

namespace fathom::gui {
namespace {

QTableView* sideTable(CallerModel* model) {
  auto* view = new QTableView;
  view->setModel(model);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setSelectionMode(QAbstractItemView::SingleSelection);
  view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view->verticalHeader()->hide();
  // Rows as tall as the text needs: a fixed 20 px wasted a row in a short pane.
  view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 4);
  QHeaderView* header = view->horizontalHeader();
  // Left-aligned titles: a centred one in a narrow column lost both ends ("ncti").
  header->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  header->setSectionResizeMode(QHeaderView::Interactive);
  header->setSectionResizeMode(CallerModel::kFunction, QHeaderView::Stretch);
  header->setSectionResizeMode(CallerModel::kValue, QHeaderView::ResizeToContents);
  header->setSectionResizeMode(CallerModel::kPercent, QHeaderView::ResizeToContents);
  // A library path can be long; its column keeps a modest width (the tooltip has the path)
  // so the function column keeps its room.
  header->resizeSection(CallerModel::kLibrary, view->fontMetrics().horizontalAdvance('x') * 12);
  view->setWordWrap(false);
  view->setTextElideMode(Qt::ElideMiddle);
  view->setAlternatingRowColors(true);
  return view;
}

}  // namespace

CallerTables::CallerTables(CallerModel* callers, CallerModel* callees, QWidget* parent)
    : QWidget(parent) {
  tabs_ = new QTabBar(this);
  tabs_->setDocumentMode(true);
  tabs_->setExpanding(false);
  tabs_->setElideMode(Qt::ElideNone);  // updateTitles() elides the long title itself
  tabs_->setUsesScrollButtons(false);
  tabs_->setDrawBase(false);
  tabs_->addTab(tr("Callers"));
  tabs_->addTab(tr("Callees"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(tabs_);
  CallerModel* models[2] = {callers, callees};
  for (int w : {kCallers, kCallees}) {
    labels_[w] = new QLabel(this);
    labels_[w]->setTextFormat(Qt::PlainText);
    // Elided by updateTitles(): a long function name must not widen the pane.
    labels_[w]->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    views_[w] = sideTable(models[w]);
    layout->addWidget(labels_[w]);
    layout->addWidget(views_[w], 1);
  }
  titles_[kCallers] = tr("Callers");
  titles_[kCallees] = tr("Callees");
  connect(tabs_, &QTabBar::currentChanged, this, [this](int i) {
    if (!tabbed_) return;
    views_[kCallers]->setVisible(i == kCallers);
    views_[kCallees]->setVisible(i == kCallees);
    updateTitles();
  });
  setTabbed(false);
}

void CallerTables::setTitle(Which w, const QString& html) {
  titles_[w] = QTextDocumentFragment::fromHtml(html).toPlainText();
  updateTitles();
}

int CallerTables::stackedRowsFit(int height) const {
  const QTableView* v = views_[kCallers];
  const int row = v->verticalHeader()->defaultSectionSize();
  const int chrome = labels_[kCallers]->sizeHint().height() +
                     v->horizontalHeader()->sizeHint().height() + 2 * v->frameWidth() + 4;
  return (height / 2 - chrome) / std::max(1, row);
}

void CallerTables::setTabbed(bool tabbed) {
  tabbed_ = tabbed;
  tabs_->setVisible(tabbed);
  for (int w : {kCallers, kCallees}) {
    labels_[w]->setVisible(!tabbed);
    views_[w]->setVisible(!tabbed || tabs_->currentIndex() == w);
  }
  updateTitles();
}

void CallerTables::updateTitles() {
  const int current = tabs_->currentIndex();
  const QString shortName[2] = {tr("Callers"), tr("Callees")};
  for (int w : {kCallers, kCallees}) {
    const QFontMetrics fm = labels_[w]->fontMetrics();
    labels_[w]->setText(fm.elidedText(titles_[w], Qt::ElideMiddle, std::max(0, width() - 4)));
    labels_[w]->setToolTip(titles_[w]);
    tabs_->setTabToolTip(w, titles_[w]);
  }
  // The tab shown carries the full title (the function's name), elided so the other tab
  // keeps its whole short name; the other one just says which table it is.
  const int other = 1 - current;
  tabs_->setTabText(other, shortName[other]);
  const QFontMetrics tfm = tabs_->fontMetrics();
  const int padding = tabs_->style()->pixelMetric(QStyle::PM_TabBarTabHSpace, nullptr, tabs_);
  const int room = width() - (tfm.horizontalAdvance(shortName[other]) + padding) - padding - 8;
  QString title = tfm.elidedText(titles_[current], Qt::ElideMiddle, std::max(room, 0));
  // '&' in a C++ name ("operator&", "const&") is not a mnemonic.
  tabs_->setTabText(current, title.replace(QLatin1Char('&'), QStringLiteral("&&")));
}

void CallerTables::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  const bool tabbed = stackedRowsFit(event->size().height()) < kMinRows;
  if (tabbed != tabbed_)
    setTabbed(tabbed);
  else
    updateTitles();
}

void CallerTables::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange)
    for (QTableView* v : views_)
      v->verticalHeader()->setDefaultSectionSize(v->fontMetrics().height() + 4);
}

}  // namespace fathom::gui
