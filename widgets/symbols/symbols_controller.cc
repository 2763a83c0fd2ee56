#include "widgets/symbols/symbols_controller.h"

#include <QMessageBox>
#include <QProgressDialog>

#include "widgets/common/trace_session.h"
#include "widgets/symbols/symbol_dialogs.h"
#include "widgets/symbols/symbols_report_dialog.h"

namespace fathom::gui {

SymbolsController::SymbolsController(TraceSession* session, QWidget* dialogParent)
    : QObject(dialogParent),
      session_(session),
      parent_(dialogParent),
      out_dir_(defaultSymbolizedDir()) {
  connect(session_, &TraceSession::reloaded, this, &SymbolsController::onReloaded);
  connect(session_, &TraceSession::reloadProgress, this, [this](quint64 bytes, quint64 total) {
    if (!progress_ || !busy_) return;
    progress_->setRange(0, 1000);
    progress_->setValue(total ? int(double(bytes) / double(total) * 1000) : 0);
  });
}

void SymbolsController::symbolize() {
  if (busy_ || !session_->isLoaded()) return;
  SymbolSearchDialog dialog(SymbolSearchSettings::load(), parent_);
  if (dialog.exec() != QDialog::Accepted) return;
  dialog.settings().save();
  runSymbolize(dialog.settings().toOptions());
}

void SymbolsController::deobfuscate() {
  if (busy_ || !session_->isLoaded()) return;
  ProguardMapsDialog dialog(loadProguardMaps(), parent_);
  if (dialog.exec() != QDialog::Accepted) return;
  saveProguardMaps(dialog.specs());
  auto maps = proguardSpecs(dialog.specs());
  if (!maps.ok() || maps->empty()) {
    QMessageBox::warning(parent_, tr("Deobfuscate"),
                         maps.ok() ? tr("No mapping file: add package=mapping.txt, or set "
                                        "FATHOM_PROGUARD_MAP.")
                                   : QString::fromStdString(maps.status().message()));
    return;
  }
  runDeobfuscate(*maps);
}

void SymbolsController::runSymbolize(const symbols::SymbolizeOptions& options) {
  const QString path = session_->path(), dir = out_dir_;
  start(tr("Symbolizing native frames with llvm-symbolizer…"),
        [options, path, dir](Core& core) { return symbolizeOnCore(core, options, path, dir); });
}

void SymbolsController::runDeobfuscate(const std::vector<symbols::ProguardMapSpec>& maps) {
  const QString path = session_->path(), dir = out_dir_;
  start(tr("Reading mapping files…"),
        [maps, path, dir](Core& core) { return deobfuscateOnCore(core, maps, path, dir); });
}

void SymbolsController::start(const QString& label, std::function<SymbolsOutcome(Core&)> work) {
  if (busy_ || !session_->isLoaded()) return;
  busy_ = true;
  // The core's symbolizer has no cancel; the reload after it has.
  progress_ = new QProgressDialog(label, QString(), 0, 0, parent_);
  progress_->setWindowTitle(tr("Symbols"));
  progress_->setAttribute(Qt::WA_DeleteOnClose);
  progress_->setMinimumDuration(300);
  progress_->setAutoClose(false);
  progress_->setAutoReset(false);
  session_->query<SymbolsOutcome>(std::move(work), this,
                                  [this](SymbolsOutcome o) { onWorkDone(std::move(o)); });
}

void SymbolsController::onWorkDone(SymbolsOutcome outcome) {
  last_ = std::move(outcome);
  if (!last_.ok || last_.outputPath.isEmpty()) {
    // Nothing new to load: the report says why.
    busy_ = false;
    if (progress_) progress_->close();
    showReport();
    emit finished(last_.ok);
    return;
  }
  if (progress_) {
    progress_->setLabelText(tr("Reloading the trace with the new names…"));
    progress_->setCancelButtonText(tr("Cancel"));
    connect(progress_, &QProgressDialog::canceled, session_, &TraceSession::cancel);
  }
  session_->reload(last_.outputPath);
}

void SymbolsController::onReloaded(bool ok, const QString& error) {
  if (!busy_) return;
  busy_ = false;
  if (progress_) progress_->close();
  if (!ok) {
    last_.ok = false;
    last_.error =
        tr("the trace was not reloaded (%1); the file is %2").arg(error, last_.outputPath);
  }
  showReport();
  emit finished(ok);
}

SymbolsReportDialog* SymbolsController::reportDialog() const { return report_; }

void SymbolsController::showReport() {
  if (!report_) report_ = new SymbolsReportDialog(parent_);
  report_->setOutcome(last_);
  report_->show();
  report_->raise();
}

}  // namespace fathom::gui
