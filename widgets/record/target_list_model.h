// The Record page's target list: this computer, adb-server devices, USB
// devices and remembered TCP devices, refreshed off the UI thread.
#pragma once

#include <QAbstractListModel>
#include <QFutureWatcher>
#include <vector>

#include "record/target_discovery.h"

namespace fathom::gui {

class TargetListModel : public QAbstractListModel {
  Q_OBJECT
 public:
  enum Role { kSerialRole = Qt::UserRole + 1, kKindRole, kProblemRole };
  explicit TargetListModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;

  const record::TargetEntry* entry(int row) const;
  // Starts a refresh on a worker thread; refreshed() follows.
  void refresh();
  void addTcpTarget(const QString& host_port);  // remembered in QSettings
  QStringList tcpTargets() const;

 signals:
  void refreshed();

 private:
  void apply(std::vector<record::TargetEntry> entries);
  std::vector<record::TargetEntry> entries_;
  QFutureWatcher<std::vector<record::TargetEntry>> watcher_;
  bool pending_ = false;
};

}  // namespace fathom::gui
