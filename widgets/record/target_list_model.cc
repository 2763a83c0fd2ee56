#include "widgets/record/target_list_model.h"

#include <QIcon>
#include <QtConcurrent/QtConcurrentRun>

#include "widgets/common/resource_icon.h"

namespace fathom::gui {

TargetListModel::TargetListModel(QObject* parent) : QAbstractListModel(parent) {
  connect(&watcher_, &QFutureWatcher<std::vector<record::TargetEntry>>::finished, this,
          [this] { apply(watcher_.result()); });
}

int TargetListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(entries_.size());
}

QVariant TargetListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= int(entries_.size())) return {};
  const record::TargetEntry& e = entries_[size_t(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      return QString::fromStdString(e.label) +
             (e.problem.empty() ? QString() : QStringLiteral("  ⚠"));
    case Qt::ToolTipRole:
      return e.problem.empty() ? QString::fromStdString(e.label)
                               : QString::fromStdString(e.problem);
    case Qt::DecorationRole:
      return resourceIcon(e.kind == record::TargetEntry::kLocal ? "computer"
                          : e.kind == record::TargetEntry::kUsb ? "usb"
                                                                : "device");
    case kSerialRole:
      return QString::fromStdString(e.serial);
    case kKindRole:
      return int(e.kind);
    case kProblemRole:
      return QString::fromStdString(e.problem);
  }
  return {};
}

const record::TargetEntry* TargetListModel::entry(int row) const {
  return row >= 0 && row < int(entries_.size()) ? &entries_[size_t(row)] : nullptr;
}

// The same list `fathom-cli connect` keeps, so the CLI and the GUI agree.
QStringList TargetListModel::tcpTargets() const {
  QStringList list;
  for (const std::string& s : record::LoadRememberedTcpTargets()) list << QString::fromStdString(s);
  return list;
}

void TargetListModel::addTcpTarget(const QString& host_port) {
  record::SetTcpTargetRemembered(host_port.toStdString(), true);
  refresh();
}

void TargetListModel::refresh() {
  if (watcher_.isRunning()) {
    pending_ = true;
    return;
  }
  std::vector<std::string> tcp;
  for (const QString& s : tcpTargets()) tcp.push_back(s.toStdString());
  watcher_.setFuture(QtConcurrent::run([tcp] { return record::DiscoverTargets(tcp); }));
}

void TargetListModel::apply(std::vector<record::TargetEntry> entries) {
  // Same targets in the same order: update in place so the selection stays.
  bool same = entries.size() == entries_.size();
  for (size_t i = 0; same && i < entries.size(); ++i)
    same = entries[i].serial == entries_[i].serial && entries[i].kind == entries_[i].kind;
  if (same) {
    entries_ = std::move(entries);
    if (!entries_.empty()) emit dataChanged(index(0), index(int(entries_.size()) - 1));
  } else {
    beginResetModel();
    entries_ = std::move(entries);
    endResetModel();
  }
  emit refreshed();
  if (pending_) {
    pending_ = false;
    refresh();
  }
}

}  // namespace fathom::gui
