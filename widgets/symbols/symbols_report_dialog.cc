#include "widgets/symbols/symbols_report_dialog.h"

#include <QDialogButtonBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace fathom::gui {

SymbolsReportDialog::SymbolsReportDialog(QWidget* parent)
    : QDialog(parent), summary_(new QLabel), saved_(new QLabel), table_(new QTableWidget) {
  auto* v = new QVBoxLayout(this);
  summary_->setWordWrap(true);
  saved_->setWordWrap(true);
  saved_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  v->addWidget(summary_);
  v->addWidget(table_, 1);
  v->addWidget(saved_);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSortingEnabled(false);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  auto* box = new QDialogButtonBox(QDialogButtonBox::Close);
  connect(box, &QDialogButtonBox::rejected, this, &QDialog::close);
  v->addWidget(box);
  resize(760, 320);
}

void SymbolsReportDialog::setOutcome(const SymbolsOutcome& o) {
  const bool sym = o.kind == SymbolsOutcome::Kind::kSymbolize;
  setWindowTitle(sym ? tr("Symbolization report") : tr("Deobfuscation report"));
  QString text = o.ok ? o.summary : tr("Failed: %1").arg(o.error);
  if (o.ok && !o.rows.empty())
    text += QLatin1Char(' ') + (sym ? tr("These libraries still have frames without names:")
                                    : tr("These classes stay obfuscated:"));
  summary_->setText(text);
  saved_->setText(o.outputPath.isEmpty()
                      ? QString()
                      : tr("The trace with the new names is saved as %1").arg(o.outputPath));
  table_->clear();
  table_->setColumnCount(int(o.headers.size()));
  table_->setHorizontalHeaderLabels(o.headers);
  table_->setRowCount(int(o.rows.size()));
  for (int r = 0; r < int(o.rows.size()); ++r)
    for (int c = 0; c < int(o.rows[size_t(r)].size()); ++c) {
      auto* item = new QTableWidgetItem(o.rows[size_t(r)][c]);
      item->setToolTip(o.rows[size_t(r)][c]);
      table_->setItem(r, c, item);
    }
  table_->resizeColumnsToContents();
  table_->setVisible(!o.rows.empty());
}

QString SymbolsReportDialog::summary() const { return summary_->text(); }

}  // namespace fathom::gui
