// The main window: the welcome page until a trace is open, then the trace
// workspace. Owns the menus, recent files, drag and drop, the load progress
// in the status bar, and the remembered window state.
#pragma once

#include <QMainWindow>
#include <QPointer>

#include "widgets/common/trace_session.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QMenu;

namespace fathom::gui {

class TraceWorkspace;
class WelcomePage;
class RecordPage;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Opens `path` in this window (replacing what is open). Asynchronous.
  void openTrace(const QString& path);
  TraceSession* session() const { return session_; }
  TraceWorkspace* workspace() const { return workspace_; }

 signals:
  // Emitted after loaded() or loadFailed() has been handled.
  void traceOpened(bool ok);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void buildMenus();
  // Settings → SQL packages (or the standard library folder): saved, and
  // applied to the open trace.
  void showSqlPackages(bool focus_stdlib);
  void buildTraceMenu();  // Symbolize… / Deobfuscate…
  void showOpenDialog();
  void addRecentFile(const QString& path);
  void rebuildRecentMenu();
  void removeRecentFile(const QString& path);
  // A file that cannot be opened: say so, offer to drop it from Recent, and
  // leave whatever is open untouched.
  void reportUnopenable(const QString& path, const QString& why);
  void onLoaded();
  void onLoadFailed();
  void onProgress(quint64 bytes, quint64 total, quint64 events, int phase);
  void showLoadReport();
  void showShortcuts();
  void explainRecording();  // hints for a trace the Record page just recorded
  void leaveRecordPage();   // back to the trace (or the welcome page)

 public:
  RecordPage* recordPage() const { return record_page_; }
  QMenu* recentMenu() const { return recent_menu_; }
  QMenu* traceMenu() const { return trace_menu_; }
  // The Record page (File → Record…); created on first use.
  Q_INVOKABLE void showRecordPage();

 private:
  QStackedWidget* stack_ = nullptr;
  WelcomePage* welcome_ = nullptr;
  RecordPage* record_page_ = nullptr;
  TraceWorkspace* workspace_ = nullptr;
  QPointer<TraceSession> session_;
  QString title_before_record_;
  QMenu* recent_menu_ = nullptr;
  QMenu* trace_menu_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QLabel* status_ = nullptr;
  QPushButton* warnings_ = nullptr;
  bool explain_recording_ = false;  // the trace being loaded came from the Record page
};

}  // namespace fathom::gui
