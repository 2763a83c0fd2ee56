// The timeline's track list as a Qt tree model: groups at the top level, their
// tracks below. Check state = shown/hidden, PinnedRole = pinned to the top,
// ExpandedRole (groups) = expanded. The canvas paints what this model says, so
// a track list view, the context menu and tests all edit the same state.
#pragma once

#include <QAbstractItemModel>
#include <QRegularExpression>
#include <QVector>

#include "widgets/timeline/track_layout.h"

namespace fathom::gui {

class TrackListModel : public QAbstractItemModel {
  Q_OBJECT
 public:
  enum Role { PinnedRole = Qt::UserRole + 1, ExpandedRole, KindRole, RowsRole, TrackIndexRole };
  // Process groups start open when a trace has at most this many (else closed).
  static constexpr int kOpenProcesses = 3;

  explicit TrackListModel(QObject* parent = nullptr);

  void setLayout(TrackLayout layout);
  // Replaces tracks of the layout in place (the process summaries once computed).
  void updateTracks(const QHash<int, TrackInfo>& tracks);
  const TrackLayout& layout() const { return layout_; }

  bool isHidden(int track) const { return hidden_.value(track); }
  bool isPinned(int track) const { return pinned_.value(track); }
  bool isExpanded(int group) const { return expanded_.value(group); }
  void setHidden(int track, bool hidden);
  void setPinned(int track, bool pinned);
  void setExpanded(int group, bool expanded);
  // Tracks whose name (or whose group's name) matches are shown; empty = all.
  void setFilter(const QRegularExpression& re);
  const QRegularExpression& filter() const { return filter_; }
  bool matchesFilter(int track) const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role) override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 signals:
  // Visibility, pinning, expansion or filter changed: relayout the canvas.
  void tracksChanged();

 private:
  static constexpr quintptr kGroupTag = ~quintptr{0};
  TrackLayout layout_;
  QVector<bool> hidden_, pinned_, expanded_;
  QRegularExpression filter_;
};

}  // namespace fathom::gui
