#include "widgets/timeline/track_model.h"

namespace fathom::gui {

TrackListModel::TrackListModel(QObject* parent) : QAbstractItemModel(parent) {}

void TrackListModel::setLayout(TrackLayout layout) {
  beginResetModel();
  layout_ = std::move(layout);
  hidden_.fill(false, layout_.tracks.size());
  pinned_.fill(false, layout_.tracks.size());
  expanded_.fill(false, layout_.groups.size());
  // System-wide groups start open; process groups closed (a system trace has hundreds),
  // unless there are only a few: a profile of one program (its heap dumps, its threads)
  // opens with them in view.
  int processes = 0;
  for (const TrackGroup& g : layout_.groups) processes += g.kind == GroupKind::kProcess;
  for (int g = 0; g < layout_.groups.size(); ++g)
    expanded_[g] = layout_.groups[g].kind != GroupKind::kProcess || processes <= kOpenProcesses;
  endResetModel();
  emit tracksChanged();
}

void TrackListModel::updateTracks(const QHash<int, TrackInfo>& tracks) {
  for (auto it = tracks.cbegin(); it != tracks.cend(); ++it)
    if (it.key() >= 0 && it.key() < layout_.tracks.size()) layout_.tracks[it.key()] = it.value();
  emit tracksChanged();
}

void TrackListModel::setHidden(int track, bool hidden) {
  if (track < 0 || track >= hidden_.size() || hidden_[track] == hidden) return;
  hidden_[track] = hidden;
  const TrackGroup& g = layout_.groups[layout_.tracks[track].group];
  QModelIndex i =
      index(static_cast<int>(g.tracks.indexOf(track)), 0, index(layout_.tracks[track].group, 0));
  emit dataChanged(i, i, {Qt::CheckStateRole});
  emit tracksChanged();
}

void TrackListModel::setPinned(int track, bool pinned) {
  if (track < 0 || track >= pinned_.size() || pinned_[track] == pinned) return;
  pinned_[track] = pinned;
  const TrackGroup& g = layout_.groups[layout_.tracks[track].group];
  QModelIndex i =
      index(static_cast<int>(g.tracks.indexOf(track)), 0, index(layout_.tracks[track].group, 0));
  emit dataChanged(i, i, {PinnedRole});
  emit tracksChanged();
}

void TrackListModel::setExpanded(int group, bool expanded) {
  if (group < 0 || group >= expanded_.size() || expanded_[group] == expanded) return;
  expanded_[group] = expanded;
  QModelIndex i = index(group, 0);
  emit dataChanged(i, i, {ExpandedRole});
  emit tracksChanged();
}

void TrackListModel::setFilter(const QRegularExpression& re) {
  filter_ = re;
  emit tracksChanged();
}

bool TrackListModel::matchesFilter(int track) const {
  if (filter_.pattern().isEmpty() || !filter_.isValid()) return true;
  const TrackInfo& t = layout_.tracks[track];
  return filter_.match(t.name).hasMatch() || filter_.match(layout_.groups[t.group].name).hasMatch();
}

QModelIndex TrackListModel::index(int row, int column, const QModelIndex& parent) const {
  if (column != 0 || row < 0) return {};
  if (!parent.isValid())
    return row < layout_.groups.size() ? createIndex(row, 0, kGroupTag) : QModelIndex();
  if (parent.internalId() != kGroupTag) return {};
  const TrackGroup& g = layout_.groups[parent.row()];
  if (row >= g.tracks.size()) return {};
  return createIndex(row, 0, static_cast<quintptr>(parent.row()));
}

QModelIndex TrackListModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() == kGroupTag) return {};
  return createIndex(static_cast<int>(child.internalId()), 0, kGroupTag);
}

int TrackListModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return static_cast<int>(layout_.groups.size());
  if (parent.column() != 0 || parent.internalId() != kGroupTag) return 0;
  return static_cast<int>(layout_.groups[parent.row()].tracks.size());
}

int TrackListModel::columnCount(const QModelIndex&) const { return 1; }

QVariant TrackListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  if (index.internalId() == kGroupTag) {
    const TrackGroup& g = layout_.groups[index.row()];
    switch (role) {
      case Qt::DisplayRole:
        return g.name;
      case ExpandedRole:
        return expanded_[index.row()];
      case RowsRole:
        return static_cast<qlonglong>(g.tracks.size());
      default:
        return {};
    }
  }
  int track = layout_.groups[static_cast<int>(index.internalId())].tracks[index.row()];
  const TrackInfo& t = layout_.tracks[track];
  switch (role) {
    case Qt::DisplayRole:
      return t.name;
    case Qt::CheckStateRole:
      return hidden_[track] ? Qt::Unchecked : Qt::Checked;
    case PinnedRole:
      return pinned_[track];
    case KindRole:
      return static_cast<int>(t.kind);
    case RowsRole:
      return static_cast<qulonglong>(t.rows);
    case TrackIndexRole:
      return track;
    default:
      return {};
  }
}

bool TrackListModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (!index.isValid()) return false;
  if (index.internalId() == kGroupTag) {
    if (role != ExpandedRole) return false;
    setExpanded(index.row(), value.toBool());
    return true;
  }
  int track = layout_.groups[static_cast<int>(index.internalId())].tracks[index.row()];
  if (role == Qt::CheckStateRole) {
    setHidden(track, value.toInt() != Qt::Checked);
    return true;
  }
  if (role == PinnedRole) {
    setPinned(track, value.toBool());
    return true;
  }
  return false;
}

Qt::ItemFlags TrackListModel::flags(const QModelIndex& index) const {
  if (!index.isValid()) return Qt::NoItemFlags;
  Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
  if (index.internalId() != kGroupTag) f |= Qt::ItemIsUserCheckable | Qt::ItemNeverHasChildren;
  return f;
}

QVariant TrackListModel::headerData(int section, Qt::Orientation o, int role) const {
  if (section == 0 && o == Qt::Horizontal && role == Qt::DisplayRole) return tr("Track");
  return {};
}

}  // namespace fathom::gui
