// The bottom panel's "Query results" tab: the result of SQL typed into the
// omnibox after ':' (as the Perfetto UI shows omnibox queries under the
// timeline), so the timeline stays in view. One line says what ran and how it
// went; "Edit in Query page" hands the statement to the full editor.
#pragma once

#include <QWidget>

#include "widgets/query/result_actions.h"

class QLabel;
class QTableView;

namespace fathom::gui {

class TraceSession;
class QueryResultModel;

class QueryResultsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit QueryResultsPanel(TraceSession* session, QWidget* parent = nullptr);
  void run(const QString& sql);

  QueryResultModel* model() const { return model_; }
  QTableView* view() const { return view_; }
  QString statusText() const;

 signals:
  void editRequested(const QString& sql);
  // A result row was double-clicked or "Show on timeline" chosen.
  void revealRequested(const fathom::gui::RowTarget& target);

 private:
  void updateStatus();
  void fitColumns();

  QueryResultModel* model_;
  QTableView* view_;
  QLabel* status_;
  bool fitted_ = false;
};

}  // namespace fathom::gui
