// The flamegraph canvas: paints a FlameTree with QPainter (one rectangle per
// visible frame, frames narrower than a few pixels merged into one grey
// block), hit-tests the mouse against what it painted last, and reports
// clicks. It holds no history; FlamegraphPanel decides what to zoom to.
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "widgets/flamegraph/flame_tree.h"

namespace fathom::gui {

class FlameView : public QWidget {
  Q_OBJECT
 public:
  enum class ColorBy { kLibrary, kName };

  explicit FlameView(QWidget* parent = nullptr);

  void setTree(std::shared_ptr<const FlameTree> tree);
  // What an empty tree says instead of the generic "empty for this view".
  void setEmptyText(const QString& text);
  const QString& emptyText() const { return empty_text_; }
  const FlameTree* tree() const { return tree_.get(); }
  // The node drawn full width (0 = root).
  void setZoomNode(int node);
  int zoomNode() const { return zoom_; }
  void setSelectedNode(int node);
  int selectedNode() const { return selected_; }
  // Root at the top (icicle, default) or at the bottom (flame).
  void setIcicle(bool icicle);
  bool icicle() const { return icicle_; }
  void setColorBy(ColorBy c);
  // Frames that match a search; the others fade. Empty = no search.
  void setMatches(std::vector<bool> matched);

  // The node under a point in widget coordinates, or -1.
  int nodeAt(const QPoint& p) const;
  // Where `node` was painted last (empty when not visible).
  QRect nodeRect(int node) const;
  // Tooltip text: name, library, self and total with percent of the root.
  QString describe(int node) const;
  // The colour key a node is coloured by (library basename or Java package).
  static QString colorKey(const FlameNode& n);

  QSize sizeHint() const override;
  static constexpr int kRowHeight = 18;

 signals:
  void nodeClicked(int node);
  void nodeHovered(int node);  // -1 when leaving
  void contextMenuForNode(int node, const QPoint& globalPos);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void leaveEvent(QEvent*) override;
  void contextMenuEvent(QContextMenuEvent* e) override;
  bool event(QEvent* e) override;

 private:
  struct Box {
    QRectF rect;
    int node;  // -1 for a merged block of tiny frames
  };
  // Places the boxes for the current tree, zoom, size and orientation (cached).
  void ensureLayout() const;
  void paintBoxes(QPainter* p);
  void paintBox(QPainter* p, const QRectF& r, int node, bool merged);
  QColor fillFor(int node) const;
  int rowY(int depth) const;
  void updateHeight();

  std::shared_ptr<const FlameTree> tree_;
  QString empty_text_;
  int zoom_ = 0;
  int selected_ = -1;
  int hovered_ = -1;
  bool icicle_ = true;
  ColorBy colorBy_ = ColorBy::kLibrary;
  std::vector<bool> matched_;
  // The layout: what paint draws and hit-testing reads; recomputed when one
  // of the layout_* keys changes.
  mutable std::vector<Box> boxes_;
  mutable QSize layout_size_;
  mutable int layout_zoom_ = -1;
  mutable const FlameTree* layout_tree_ = nullptr;
  mutable bool layout_icicle_ = true;
};

}  // namespace fathom::gui
