// Symbolize… / Deobfuscate… for one session, shared by the flamegraph panel
// and the Trace menu: asks for the search paths or maps (remembered), runs
// the core on the query lane with a progress dialog, reloads the session with
// the packets appended (cancelable), then shows the report. Panels re-query on
// TraceSession::reloaded.
#pragma once

#include <QObject>
#include <QPointer>
#include <functional>

#include "widgets/symbols/symbol_job.h"

class QProgressDialog;
class QWidget;

namespace fathom::gui {

class TraceSession;
class SymbolsReportDialog;

class SymbolsController : public QObject {
  Q_OBJECT
 public:
  SymbolsController(TraceSession* session, QWidget* dialogParent);

  // With the options dialogs.
  void symbolize();
  void deobfuscate();
  // Without them (tests, scripting).
  void runSymbolize(const symbols::SymbolizeOptions& options);
  void runDeobfuscate(const std::vector<symbols::ProguardMapSpec>& maps);

  bool isBusy() const { return busy_; }
  const SymbolsOutcome& lastOutcome() const { return last_; }
  SymbolsReportDialog* reportDialog() const;  // null before the first run
  // Where appended traces are written (default: the cache folder).
  void setOutputDir(const QString& dir) { out_dir_ = dir; }

 signals:
  // After the reload (or the failure); the report dialog is showing.
  void finished(bool ok);

 private:
  void start(const QString& label, std::function<SymbolsOutcome(Core&)> work);
  void onWorkDone(SymbolsOutcome outcome);
  void onReloaded(bool ok, const QString& error);
  void showReport();

  TraceSession* session_;
  QPointer<QWidget> parent_;
  QPointer<QProgressDialog> progress_;
  QPointer<SymbolsReportDialog> report_;
  SymbolsOutcome last_;
  QString out_dir_;
  bool busy_ = false;
};

}  // namespace fathom::gui
