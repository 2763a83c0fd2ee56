// The flamegraph's side tables: callers and callees of the selected function.
// With room for a few rows each they stack (titles above); in a short pane (a
// 1024×700 window) they become two tabs sharing the height, so the one shown
// keeps several rows instead of two tables of less than one row each.
#pragma once

#include <QWidget>

class QLabel;
class QStackedWidget;
class QTabBar;
class QTableView;

namespace fathom::gui {

class CallerModel;

class CallerTables : public QWidget {
  Q_OBJECT
 public:
  enum Which { kCallers, kCallees };
  CallerTables(CallerModel* callers, CallerModel* callees, QWidget* parent = nullptr);

  QTableView* view(Which w) const { return views_[w]; }
  // Rich text ("Callers of <b>f</b>"); shown elided, in full as the tooltip.
  void setTitle(Which w, const QString& html);
  QString title(Which w) const { return titles_[w]; }
  bool isTabbed() const { return tabbed_; }
  // Rows a table needs to be worth showing (stacked mode keeps at least this many each).
  static constexpr int kMinRows = 4;

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  void setTabbed(bool tabbed);
  void updateTitles();
  int stackedRowsFit(int height) const;

  QTabBar* tabs_;
  QLabel* labels_[2];
  QTableView* views_[2];
  QString titles_[2];
  bool tabbed_ = false;
};

}  // namespace fathom::gui
