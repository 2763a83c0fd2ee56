// The Query page: an SQL editor (monospace, highlighted, history across runs,
// Ctrl+Enter runs the statement or the selection, Examples menu) over a lazy
// results table with row count, time, Cancel, CSV export and inline errors.
#pragma once

#include <QWidget>

#include "widgets/common/trace_session.h"
#include "widgets/query/result_actions.h"

class QLabel;
class QPlainTextEdit;
class QTableView;
class QToolButton;
class QMenu;

namespace fathom::gui {

class QueryResultModel;
class SqlEditor;
class SqlHighlighter;

class QueryPage : public QWidget {
  Q_OBJECT
 public:
  explicit QueryPage(TraceSession* session, QWidget* parent = nullptr);
  void setQuery(const QString& sql);
  QString query() const;
  // Runs the selection if there is one, else the whole editor text.
  void runQuery();
  void cancelQuery();
  // Writes the result as CSV to `path` (fetching the rest first).
  void exportCsv(const QString& path);

  QueryResultModel* model() const { return model_; }
  QTableView* resultView() const { return view_; }
  QPlainTextEdit* editor() const;
  // The editor with its completion.
  SqlEditor* sqlEditor() const { return editor_; }
  // Re-reads the names completion offers (done after loading and after each query).
  void refreshCompletions();
  // True while a refresh is under way.
  bool refreshingCompletions() const { return vocabulary_requests_ > 0; }
  // The inline error text ("" when the last run succeeded).
  QString errorText() const;
  QString statusText() const;
  QMenu* examplesMenu() const { return examples_; }

  static QStringList history();
  static constexpr int kMaxHistory = 100;

 signals:
  // The completion names were re-read.
  void completionsRefreshed();
  // A result row was double-clicked or "Show on timeline" chosen.
  void revealRequested(const fathom::gui::RowTarget& target);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void addToHistory(const QString& sql);
  void rebuildHistoryMenu();
  void updateStatus();
  void showError();
  void chooseExportFile();

  TraceSession* session_;
  QueryResultModel* model_;
  SqlEditor* editor_;
  SqlHighlighter* highlighter_;
  QTableView* view_;
  QLabel* error_;
  QLabel* status_;
  QToolButton* run_;
  QToolButton* cancel_;
  QToolButton* export_;
  QMenu* examples_;
  QMenu* history_menu_;
  int sql_offset_ = 0;
  int vocabulary_requests_ = 0;  // where the run text starts in the editor (selection)
};

}  // namespace fathom::gui
