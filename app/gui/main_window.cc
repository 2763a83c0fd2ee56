#include "app/gui/main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <utility>

#include "app/gui/recent_files.h"
#include "app/gui/sql_packages_dialog.h"
#include "app/gui/trace_workspace.h"
#include "app/gui/welcome_page.h"
#include "widgets/common/format.h"
#include "widgets/common/resource_icon.h"
#include "widgets/common/sql_package_settings.h"
#include "widgets/common/theme.h"
#include "widgets/common/trace_session.h"
#include "widgets/flamegraph/flamegraph_panel.h"
#if defined(FATHOM_GUI_HAVE_RECORD)
#include "widgets/record/record_page.h"
#include "widgets/record/recording_runner.h"
#endif

namespace fathom::gui {
namespace {
constexpr int kMaxRecent = 12;
const char* kRecentKey = "recentFiles";
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(QStringLiteral("Fathom"));
  setWindowIcon(resourceIcon("fathom"));
  setAcceptDrops(true);

  stack_ = new QStackedWidget(this);
  welcome_ = new WelcomePage;
  stack_->addWidget(welcome_);
  setCentralWidget(stack_);
  connect(welcome_, &WelcomePage::openRequested, this, &MainWindow::showOpenDialog);
  connect(welcome_, &WelcomePage::recentFileActivated, this, &MainWindow::openTrace);
  connect(welcome_, &WelcomePage::recordRequested, this, &MainWindow::showRecordPage);
#if !defined(FATHOM_GUI_HAVE_RECORD)
  welcome_->recordButton()->setEnabled(false);
  welcome_->recordButton()->setToolTip(tr("This build has no recording support (adb module off)"));
#endif

  progress_ = new QProgressBar;
  progress_->setMaximumWidth(260);
  progress_->setTextVisible(true);
  progress_->hide();
  cancel_ = new QPushButton(tr("Cancel"));
  cancel_->hide();
  status_ = new QLabel;
  warnings_ = new QPushButton;
  warnings_->setFlat(true);
  warnings_->hide();
  connect(warnings_, &QPushButton::clicked, this, &MainWindow::showLoadReport);
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(warnings_);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancel_);

  buildMenus();
  QSettings settings;
  restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
  if (!settings.contains(QStringLiteral("window/geometry"))) {
    // The first window: 1400x900, or the screen's free area when smaller (a window larger
    // than a 1024x700 screen hides its right edge).
    QSize size(1400, 900);
    if (const QScreen* s = screen()) size = size.boundedTo(s->availableGeometry().size());
    resize(size);
  }
  rebuildRecentMenu();
}

MainWindow::~MainWindow() = default;

void MainWindow::showSqlPackages(bool focus_stdlib) {
  SqlPackagesDialog dialog(SqlPackageSettings::load(), this);
  if (focus_stdlib) dialog.stdlibEdit()->setFocus();
  if (dialog.exec() != QDialog::Accepted) return;
  const SqlPackageSettings chosen = dialog.settings();
  chosen.save();
  // The open trace's Query page and ':' SQL use them from now on; the next
  // traces get them when they open.
  if (session_ && session_->isLoaded())
    applySqlPackageSettings(chosen, session_.data(), this, [this](const QString& problems) {
      if (!problems.isEmpty()) QMessageBox::warning(this, tr("SQL packages"), problems);
    });
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open =
      file->addAction(resourceIcon("open"), tr("&Open…"), this, &MainWindow::showOpenDialog);
  open->setShortcut(QKeySequence::Open);
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  QAction* record =
      file->addAction(resourceIcon("record"), tr("&Record…"), this, &MainWindow::showRecordPage);
  record->setShortcut(QKeySequence(QStringLiteral("Ctrl+R")));
#if !defined(FATHOM_GUI_HAVE_RECORD)
  record->setEnabled(false);
#endif
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  auto add_view = [&](const QString& name, TraceWorkspace::View v, const QString& keys) {
    QAction* a = view->addAction(name, this, [this, v] {
      if (workspace_) workspace_->setView(v);
    });
    a->setShortcut(QKeySequence(keys));
  };
  add_view(tr("&Timeline"), TraceWorkspace::View::kTimeline, QStringLiteral("Ctrl+1"));
  add_view(tr("&Flamegraph"), TraceWorkspace::View::kFlamegraph, QStringLiteral("Ctrl+2"));
  add_view(tr("&Query (SQL)"), TraceWorkspace::View::kQuery, QStringLiteral("Ctrl+3"));
  add_view(tr("&Logs"), TraceWorkspace::View::kLogs, QStringLiteral("Ctrl+4"));
  add_view(tr("&Heap explorer"), TraceWorkspace::View::kHeapExplorer, QStringLiteral("Ctrl+5"));
  view->addSeparator();
  QMenu* theme = view->addMenu(tr("&Theme"));
  auto* themes = new QActionGroup(this);
  for (auto [name, t] :
       {std::pair{tr("Follow the &system"), Theme::kSystem}, std::pair{tr("&Light"), Theme::kLight},
        std::pair{tr("&Dark"), Theme::kDark}}) {
    QAction* a = theme->addAction(name, this, [t = t] {
      saveTheme(t);
      applyTheme(t);
    });
    a->setCheckable(true);
    a->setChecked(savedTheme() == t);
    themes->addAction(a);
  }

  buildTraceMenu();
  QMenu* settings = menuBar()->addMenu(tr("&Settings"));
  settings->addAction(tr("SQL &packages…"), this, [this] { showSqlPackages(false); });
  settings->addAction(tr("Perfetto &standard library folder…"), this,
                      [this] { showSqlPackages(true); });

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&Keyboard shortcuts"), this, &MainWindow::showShortcuts)
      ->setShortcut(QKeySequence::HelpContents);
  help->addAction(tr("&About Fathom"), this, [this] {
    QMessageBox::about(this, tr("About Fathom"),
                       tr("<b>Fathom %1</b><p>Trace recorder and flamegraph viewer for Android "
                          "and Linux.</p>")
                           .arg(QApplication::applicationVersion()));
  });
}

void MainWindow::showShortcuts() {
  QMessageBox box(this);
  box.setWindowTitle(tr("Keyboard shortcuts"));
  box.setTextFormat(Qt::RichText);
  box.setText(
      tr("<table cellspacing=6>"
         "<tr><td><b>Ctrl+O</b></td><td>Open a trace</td></tr>"
         "<tr><td><b>Ctrl+R</b></td><td>Record a trace</td></tr>"
         "<tr><td><b>Ctrl+1 … 4</b></td><td>Timeline, flamegraph, query, logs</td></tr>"
         "<tr><td><b>W / S</b></td><td>Zoom in / out (physical keys: Z/S on AZERTY)</td></tr>"
         "<tr><td><b>A / D</b></td><td>Pan left / right (physical keys: Q/D on AZERTY)</td></tr>"
         "<tr><td><b>Wheel, Ctrl+Wheel</b></td><td>Scroll tracks, zoom at the mouse</td></tr>"
         "<tr><td><b>Drag</b></td><td>Select a time range (aggregates below)</td></tr>"
         "<tr><td><b>F</b></td><td>Fit the selection</td></tr>"
         "<tr><td><b>Alt+Left / Alt+Right</b></td><td>Zoom history back / forward</td></tr>"
         "<tr><td><b>Ctrl+F, /</b></td><td>Search slices, threads, args (the flamegraph tab: "
         "its own search); Enter / Shift+Enter: next / previous; ':' runs SQL</td></tr>"
         "<tr><td><b>Ctrl+J</b></td><td>Fold / unfold the bottom panel</td></tr>"
         "<tr><td><b>Ctrl+Enter</b></td><td>Run the query</td></tr>"
         "</table>"));
  box.exec();
}

void MainWindow::showRecordPage() {
#if defined(FATHOM_GUI_HAVE_RECORD)
  if (!record_page_) {
    record_page_ = new RecordPage;
    stack_->addWidget(record_page_);
    connect(record_page_, &RecordPage::backRequested, this, &MainWindow::leaveRecordPage);
    connect(record_page_, &RecordPage::traceRecorded, this, [this](const QString& path) {
      openTrace(path);
      explain_recording_ = true;  // once loaded: what the recorded trace says went wrong
    });
  }
  if (stack_->currentWidget() != record_page_) title_before_record_ = windowTitle();
  stack_->setCurrentWidget(record_page_);
  // Keyboard focus moves into the page (its target list): the focused widget
  // was on the page just hidden, and Esc, a page shortcut, needs it here.
  record_page_->setFocus(Qt::OtherFocusReason);
  setWindowTitle(tr("Record — Fathom"));
#endif
}

void MainWindow::leaveRecordPage() {
  stack_->setCurrentWidget(workspace_ ? static_cast<QWidget*>(workspace_) : welcome_);
  setWindowTitle(title_before_record_.isEmpty() ? QStringLiteral("Fathom") : title_before_record_);
}

void MainWindow::buildTraceMenu() {
  trace_menu_ = menuBar()->addMenu(tr("&Trace"));
  // The flamegraph panel owns the work, so its graph refreshes in place; the
  // menu shows the panel first so the result is in view.
  auto run = [this](bool symbolize) {
    if (!workspace_ || !session_ || !session_->isLoaded()) return;
    workspace_->setView(TraceWorkspace::View::kFlamegraph);
    if (symbolize)
      workspace_->flamegraph()->symbolize();
    else
      workspace_->flamegraph()->deobfuscate();
  };
  QAction* sym = trace_menu_->addAction(tr("&Symbolize…"), this, [run] { run(true); });
  QAction* deob = trace_menu_->addAction(tr("&Deobfuscate…"), this, [run] { run(false); });
  connect(trace_menu_, &QMenu::aboutToShow, this, [this, sym, deob] {
    const bool on = workspace_ && session_ && session_->isLoaded();
    sym->setEnabled(on);
    deob->setEnabled(on);
  });
}

void MainWindow::showOpenDialog() {
  QSettings settings;
  const QString dir = settings.value(QStringLiteral("lastOpenDir")).toString();
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open trace"), dir,
      tr("Traces (*.perfetto-trace *.pftrace *.pb *.trace *.json *.html *.txt *.gz *.zst);;"
         "All files (*)"));
  if (path.isEmpty()) return;
  settings.setValue(QStringLiteral("lastOpenDir"), QFileInfo(path).absolutePath());
  openTrace(path);
}

void MainWindow::openTrace(const QString& path) {
  // Check before anything is torn down: a recent entry whose file is gone
  // must leave the open trace as it is.
  const QFileInfo info(path);
  if (!info.isFile() || !info.isReadable()) {
    reportUnopenable(path, info.exists() ? tr("it cannot be read") : tr("it no longer exists"));
    return;
  }
  if (workspace_) {
    stack_->removeWidget(workspace_);
    workspace_->deleteLater();
    workspace_ = nullptr;
  }
  if (session_) session_->deleteLater();
  session_ = new TraceSession(this);
  connect(session_, &TraceSession::loadProgress, this, &MainWindow::onProgress);
  connect(session_, &TraceSession::loaded, this, &MainWindow::onLoaded);
  connect(session_, &TraceSession::loadFailed, this, &MainWindow::onLoadFailed);
  connect(cancel_, &QPushButton::clicked, session_, &TraceSession::cancel, Qt::UniqueConnection);

  workspace_ = new TraceWorkspace(session_);
  stack_->addWidget(workspace_);
  warnings_->hide();
  progress_->setRange(0, 1000);
  progress_->setValue(0);
  progress_->show();
  cancel_->show();
  status_->setText(tr("Loading %1…").arg(QFileInfo(path).fileName()));
  setWindowTitle(QFileInfo(path).fileName() + QStringLiteral(" — Fathom"));
  addRecentFile(QFileInfo(path).absoluteFilePath());
  session_->open(path);
}

void MainWindow::onProgress(quint64 bytes, quint64 total, quint64 events, int phase) {
  static const char* kPhases[] = {"Reading", "Parsing", "Indexing"};
  const double fraction = total ? double(bytes) / double(total) : 0;
  // Reading is most of the time; parsing the sorted tail and indexing the rest.
  const int value = phase == 0 ? int(fraction * 800) : phase == 1 ? 850 : 950;
  progress_->setValue(value);
  progress_->setFormat(QStringLiteral("%1 %2 / %3 — %4 events")
                           .arg(QLatin1String(kPhases[qBound(0, phase, 2)]))
                           .arg(formatBytes(double(bytes)))
                           .arg(formatBytes(double(total)))
                           .arg(formatCount(qint64(events))));
}

void MainWindow::onLoaded() {
  progress_->hide();
  cancel_->hide();
  const LoadOutcome& o = session_->outcome();
  stack_->setCurrentWidget(workspace_);
  status_->setText(
      tr("%1 · %2 · %3 events · loaded in %4 s")
          .arg(o.format, formatBytes(double(o.fileBytes)), formatCount(qint64(o.events)))
          .arg(o.seconds, 0, 'f', 2));
  if (!o.warnings.isEmpty()) {
    warnings_->setText(tr("⚠ %n problem(s) while loading", "", int(o.warnings.size())));
    warnings_->show();
  }
#if defined(FATHOM_GUI_HAVE_RECORD)
  if (std::exchange(explain_recording_, false) && record_page_) explainRecording();
#endif
  emit traceOpened(true);
}

#if defined(FATHOM_GUI_HAVE_RECORD)
// Troubleshooting hints from the viewer's own load of a fresh recording (one load, not two),
// shown non-blocking and kept on the Record page.
void MainWindow::explainRecording() {
  const record::SessionObservations seen = record_page_->lastObservations();
  session_->query<QStringList>([seen](Core& core) { return troubleshootRecordedTrace(core, seen); },
                               this,
                               [this](QStringList texts) {
                                 if (texts.isEmpty()) return;
                                 if (record_page_) record_page_->showRecordingHints(texts);
                                 auto* box = new QMessageBox(this);
                                 box->setAttribute(Qt::WA_DeleteOnClose);
                                 box->setObjectName(QStringLiteral("recordingHints"));
                                 box->setIcon(QMessageBox::Warning);
                                 box->setWindowTitle(tr("Recording problems"));
                                 box->setText(tr("The trace was recorded, but:"));
                                 box->setInformativeText(texts.join(QStringLiteral("\n\n")));
                                 box->open();
                               });
}
#endif

void MainWindow::onLoadFailed() {
  progress_->hide();
  cancel_->hide();
  const LoadOutcome& o = session_->outcome();
  stack_->setCurrentWidget(welcome_);
  status_->setText(o.cancelled ? tr("Loading cancelled") : tr("Could not open the trace"));
  setWindowTitle(QStringLiteral("Fathom"));
  if (!o.cancelled) showLoadReport();
  emit traceOpened(false);
}

void MainWindow::showLoadReport() {
  if (!session_) return;
  const LoadOutcome& o = session_->outcome();
  // Non-blocking: the window (and tests driving it) keep running.
  auto* box = new QMessageBox(this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setObjectName(QStringLiteral("loadReport"));
  box->setIcon(o.ok ? QMessageBox::Information : QMessageBox::Warning);
  box->setWindowTitle(o.ok ? tr("Load report") : tr("Could not open the trace"));
  box->setText(o.ok ? tr("%1 loaded, but some data was dropped.").arg(QFileInfo(o.path).fileName())
                    : o.error);
  if (!o.ok) {
    box->setInformativeText(tr("The file itself is untouched: %1").arg(o.path));
  }
  if (!o.warnings.isEmpty()) box->setDetailedText(o.warnings.join(QLatin1Char('\n')));
  box->open();
}

void MainWindow::addRecentFile(const QString& path) {
  QSettings settings;
  QStringList recent = settings.value(QLatin1String(kRecentKey)).toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > kMaxRecent) recent.removeLast();
  settings.setValue(QLatin1String(kRecentKey), recent);
  rebuildRecentMenu();
}

void MainWindow::reportUnopenable(const QString& path, const QString& why) {
  auto* box = new QMessageBox(QMessageBox::Warning, tr("Cannot open trace"),
                              tr("Cannot open %1: %2.").arg(QFileInfo(path).fileName(), why),
                              QMessageBox::Close, this);
  box->setObjectName(QStringLiteral("unopenableBox"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setInformativeText(QDir::toNativeSeparators(path));
  const QStringList recent = QSettings().value(QLatin1String(kRecentKey)).toStringList();
  if (recent.contains(path)) {
    QPushButton* remove = box->addButton(tr("Remove from Recent"), QMessageBox::ActionRole);
    connect(remove, &QPushButton::clicked, this, [this, path] { removeRecentFile(path); });
  }
  status_->setText(tr("Cannot open %1").arg(QDir::toNativeSeparators(path)));
  box->open();
}

void MainWindow::removeRecentFile(const QString& path) {
  QSettings settings;
  QStringList recent = settings.value(QLatin1String(kRecentKey)).toStringList();
  recent.removeAll(path);
  settings.setValue(QLatin1String(kRecentKey), recent);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  const QStringList recent = QSettings().value(QLatin1String(kRecentKey)).toStringList();
  const QStringList labels = recentFileLabels(recent);
  recent_menu_->clear();
  for (int i = 0; i < recent.size(); ++i) {
    const QString path = recent[i];
    recent_menu_->addAction(labels[i], this, [this, path] { openTrace(path); })
        ->setToolTip(QDir::toNativeSeparators(path));
  }
  recent_menu_->setEnabled(!recent.isEmpty());
  welcome_->setRecentFiles(recent);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings settings;
  settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("window/state"), saveState());
  if (session_) session_->cancel();
  QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QList<QUrl> urls = event->mimeData()->urls();
  if (!urls.isEmpty() && urls.first().isLocalFile()) openTrace(urls.first().toLocalFile());
}

}  // namespace fathom::gui
