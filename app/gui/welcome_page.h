// What the window shows before a trace is open: Open…, Record…, the recent
// files, and a hint that a trace can be dropped anywhere on the window.
#pragma once

#include <QWidget>

class QListWidget;
class QPushButton;

namespace fathom::gui {

class WelcomePage : public QWidget {
  Q_OBJECT
 public:
  explicit WelcomePage(QWidget* parent = nullptr);
  void setRecentFiles(const QStringList& paths);
  QPushButton* recordButton() const { return record_; }

 signals:
  void openRequested();
  void recordRequested();
  void recentFileActivated(const QString& path);

 private:
  QListWidget* recent_ = nullptr;
  QPushButton* record_ = nullptr;
};

}  // namespace fathom::gui
