// What Symbolize… / Deobfuscate… could not do, as a table: for native frames
// one row per library (library, build id, unresolved frames, why not found),
// for Java the classes found in no map. Non-modal: the flamegraph stays usable.
#pragma once

#include <QDialog>

#include "widgets/symbols/symbol_job.h"

class QLabel;
class QTableWidget;

namespace fathom::gui {

class SymbolsReportDialog : public QDialog {
  Q_OBJECT
 public:
  explicit SymbolsReportDialog(QWidget* parent = nullptr);
  void setOutcome(const SymbolsOutcome& outcome);
  QTableWidget* table() const { return table_; }
  QString summary() const;

 private:
  QLabel* summary_;
  QLabel* saved_;
  QTableWidget* table_;
};

}  // namespace fathom::gui
