// The omnibox: one line edit for finding things in the trace. Plain text is a
// case-insensitive substring; /text/ or the ".*" toggle makes it a regex; a
// ':' prefix makes the rest SQL (as in the Perfetto UI). The lookup runs on the
// session's query lane as the user types (debounced), names first and args
// after (search_engine.h); a newer text cancels the older lookup. Enter /
// Shift+Enter step to the next / previous match in time order and "n of N"
// says where we are ("N+…" while the args pass runs).
#pragma once

#include <QWidget>
#include <atomic>
#include <memory>

#include "widgets/search/search_engine.h"

class QLabel;
class QLineEdit;
class QTimer;
class QToolButton;

namespace fathom::gui {

class TraceSession;

class SearchBox : public QWidget {
  Q_OBJECT
 public:
  explicit SearchBox(TraceSession* session, QWidget* parent = nullptr);
  ~SearchBox() override;

  QLineEdit* edit() const { return edit_; }
  QToolButton* regexToggle() const { return regex_; }
  QString statusText() const;
  const SearchResult& result() const { return result_; }
  int current() const { return current_; }  // -1: none yet
  // Focuses the box and selects its text (Ctrl+F, '/').
  void activate();
  // Enter / Shift+Enter: searches first if the text changed, then steps.
  void step(bool forward);
  bool isBusy() const { return pending_ > 0; }

 signals:
  void matchSelected(const fathom::gui::SearchMatch& match);
  // All matches' start times (sorted), for ticks on the ruler; empty: none.
  void matchesChanged(const QVector<qint64>& ts);
  void sqlEntered(const QString& sql);
  void searchFinished();
  // Esc: give the focus back (to the timeline).
  void dismissed();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  SearchQuery currentQuery() const;
  bool isSql() const;
  void startSearch();
  // The names pass arrived: its matches can be stepped through at once.
  void takeNames(SearchResult r);
  // The args pass arrived: its matches join the list, the current one stays current.
  void takeArgs(const SearchResult& r);
  void updateLabel();

  TraceSession* session_;
  QLineEdit* edit_;
  QToolButton* regex_;
  QLabel* label_;
  QTimer* debounce_;
  SearchResult result_;
  int current_ = -1;
  int pending_ = 0;
  int generation_ = 0;
  // Set when a newer search starts: the older one's passes stop at their next check.
  std::shared_ptr<std::atomic<bool>> cancel_;
  int step_when_ready_ = 0;  // +1 / -1: Enter was pressed before the result arrived
};

}  // namespace fathom::gui
