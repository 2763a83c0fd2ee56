#include "widgets/flamegraph/flame_view.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <cmath>

#include "widgets/common/format.h"
#include "widgets/common/theme.h"

namespace fathom::gui {
namespace {

// Frames narrower than this are merged with their narrow neighbours into one
// grey block: painting thousands of 1-px slivers says nothing and costs time.
constexpr double kMinFramePx = 2.0;

QColor blend(const QColor& a, const QColor& b, double t) {
  return QColor::fromRgbF(float(a.redF() * (1 - t) + b.redF() * t),
                          float(a.greenF() * (1 - t) + b.greenF() * t),
                          float(a.blueF() * (1 - t) + b.blueF() * t));
}

QString formatValue(double v, FlameTree::Unit unit) {
  switch (unit) {
    case FlameTree::Unit::kBytes:
      return formatBytes(v);
    case FlameTree::Unit::kSamples:
      return formatCount(int64_t(v)) + QStringLiteral(" samples");
    case FlameTree::Unit::kCount:
      break;
  }
  return formatCount(int64_t(v));
}

}  // namespace

FlameView::FlameView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setFocusPolicy(Qt::StrongFocus);
}

void FlameView::setTree(std::shared_ptr<const FlameTree> tree) {
  tree_ = std::move(tree);
  layout_size_ = QSize();  // a new tree may reuse the old one's address
  zoom_ = 0;
  selected_ = hovered_ = -1;
  matched_.clear();
  updateHeight();
  update();
}

void FlameView::setZoomNode(int node) {
  zoom_ = tree_ && node >= 0 && node < tree_->size() ? node : 0;
  update();
}

void FlameView::setSelectedNode(int node) {
  selected_ = node;
  update();
}

void FlameView::setIcicle(bool icicle) {
  icicle_ = icicle;
  update();
}

void FlameView::setColorBy(ColorBy c) {
  colorBy_ = c;
  update();
}

void FlameView::setMatches(std::vector<bool> matched) {
  matched_ = std::move(matched);
  update();
}

void FlameView::updateHeight() {
  const int rows = tree_ ? tree_->maxDepth() + 1 : 1;
  setMinimumHeight(rows * kRowHeight + 4);
  updateGeometry();
}

QSize FlameView::sizeHint() const {
  return QSize(800, tree_ ? (tree_->maxDepth() + 1) * kRowHeight + 4 : 200);
}

int FlameView::rowY(int depth) const {
  return icicle_ ? depth * kRowHeight : height() - (depth + 1) * kRowHeight;
}

QString FlameView::colorKey(const FlameNode& n) {
  if (n.library == QLatin1String("JAVA") || n.library.isEmpty()) {
    // Java: the package ("java.lang" of "java.lang.String[]"); else the name.
    QString name = n.name;
    name = name.section(QLatin1Char(' '), 0, 0);
    const int dot = name.lastIndexOf(QLatin1Char('.'));
    return dot > 0 ? name.left(dot) : name;
  }
  return n.library.section(QLatin1Char('/'), -1);
}

QColor FlameView::fillFor(int node) const {
  const FlameNode& n = tree_->node(node);
  QColor c;
  if (tree_->isDiff) {
    // Red where this dump grew against the base, blue where it shrank.
    const double base = std::max(std::abs(n.total), std::abs(n.baseTotal));
    const double r = base > 0 ? (n.total - n.baseTotal) / base : 0;
    const QColor neutral = isDarkPalette() ? QColor(90, 90, 90) : QColor(235, 235, 235);
    c = blend(neutral, r >= 0 ? QColor(220, 40, 40) : QColor(40, 90, 220),
              std::min(1.0, std::abs(r)));
    if (n.baseTotal == 0 && n.total != 0) c = QColor(200, 0, 0);  // new in this dump
  } else if (node == 0) {
    c = palette().color(QPalette::Mid);
  } else {
    c = colorForName(colorBy_ == ColorBy::kLibrary ? colorKey(n) : n.name);
  }
  if (!matched_.empty() && size_t(node) < matched_.size() && !matched_[size_t(node)])
    c = blend(c, palette().color(QPalette::Base), 0.75);
  return c;
}

void FlameView::paintBox(QPainter* p, const QRectF& r, int node, bool merged) {
  const QRectF inner = r.adjusted(0, 0, r.width() > 3 ? -1 : 0, -1);
  if (merged) {
    p->fillRect(inner, palette().color(QPalette::Midlight));
    return;
  }
  const QColor fill = fillFor(node);
  p->fillRect(inner, fill);
  if (node == selected_) {
    p->setPen(QPen(palette().color(QPalette::Highlight), 2));
    p->drawRect(inner.adjusted(1, 1, -1, -1));
  } else if (node == hovered_) {
    p->setPen(QPen(textColorOn(fill), 1));
    p->drawRect(inner.adjusted(0.5, 0.5, -0.5, -0.5));
  }
  if (inner.width() < 24) return;
  const FlameNode& n = tree_->node(node);
  QString text = n.name;
  if (node == 0) text = tr("all · %1").arg(formatValue(n.total, tree_->unit));
  if (tree_->isDiff) {
    const double d = n.total - n.baseTotal;
    text += QStringLiteral("  (%1%2)")
                .arg(d >= 0 ? QStringLiteral("+") : QString(), formatValue(d, tree_->unit));
  }
  const QString shown = p->fontMetrics().elidedText(text, Qt::ElideRight, int(inner.width()) - 6);
  if (shown.size() <= 1) return;
  QColor ink = textColorOn(fill);
  p->setPen(ink);
  p->drawText(inner.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft, shown);
}

void FlameView::ensureLayout() const {
  if (layout_size_ == size() && layout_zoom_ == zoom_ && layout_tree_ == tree_.get() &&
      layout_icicle_ == icicle_)
    return;
  layout_size_ = size();
  layout_zoom_ = zoom_;
  layout_tree_ = tree_.get();
  layout_icicle_ = icicle_;
  boxes_.clear();
  if (!tree_) return;
  const double W = width();
  // Ancestors of the zoomed node span the whole width.
  std::vector<int> chain = tree_->pathTo(zoom_);
  chain.insert(chain.begin(), 0);
  if (zoom_ == 0) chain.resize(1);
  for (size_t i = 0; i + 1 < chain.size(); ++i) {
    const FlameNode& a = tree_->node(chain[i]);
    boxes_.push_back({QRectF(0, rowY(a.depth), W, kRowHeight), chain[i]});
  }
  const double rootTotal = std::abs(tree_->node(zoom_).total);
  if (rootTotal <= 0) {
    boxes_.push_back({QRectF(0, rowY(tree_->node(zoom_).depth), W, kRowHeight), zoom_});
  } else {
    const double scale = W / rootTotal;
    // Iterative walk: (node, x, w).
    struct Item {
      int node;
      double x, w;
    };
    std::vector<Item> stack{{zoom_, 0, W}};
    while (!stack.empty()) {
      const Item it = stack.back();
      stack.pop_back();
      const FlameNode& n = tree_->node(it.node);
      boxes_.push_back({QRectF(it.x, rowY(n.depth), it.w, kRowHeight), it.node});
      double cx = it.x, tinyStart = -1;
      auto flush = [&](double end) {
        if (tinyStart >= 0 && end - tinyStart >= 1)
          boxes_.push_back({QRectF(tinyStart, rowY(n.depth + 1), end - tinyStart, kRowHeight), -1});
        tinyStart = -1;
      };
      for (int c : n.children) {
        const double cw = std::abs(tree_->node(c).total) * scale;
        if (cw < kMinFramePx) {
          if (tinyStart < 0) tinyStart = cx;
        } else {
          flush(cx);
          stack.push_back({c, cx, cw});
        }
        cx += cw;
      }
      flush(cx);
    }
  }
}

void FlameView::paintBoxes(QPainter* p) {
  ensureLayout();
  const QRect clip = p->clipBoundingRect().toAlignedRect();
  for (const Box& b : boxes_)
    if (clip.isEmpty() || b.rect.intersects(clip)) paintBox(p, b.rect, b.node, b.node < 0);
}

void FlameView::setEmptyText(const QString& text) {
  empty_text_ = text;
  update();
}

void FlameView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Base));
  if (!tree_ || tree_->total() == 0) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(
        rect(), Qt::AlignCenter,
        tree_ ? (empty_text_.isEmpty() ? tr("Nothing to show: the profile is empty for this view")
                                       : empty_text_)
              : tr("Click a heap dump (diamond) or select CPU samples on the timeline"));
    return;
  }
  QFont f = font();
  f.setPointSizeF(f.pointSizeF() * 0.9);
  p.setFont(f);
  paintBoxes(&p);
}

int FlameView::nodeAt(const QPoint& pt) const {
  ensureLayout();
  for (auto it = boxes_.rbegin(); it != boxes_.rend(); ++it)
    if (it->node >= 0 && it->rect.contains(pt)) return it->node;
  return -1;
}

QRect FlameView::nodeRect(int node) const {
  ensureLayout();
  for (const Box& b : boxes_)
    if (b.node == node) return b.rect.toAlignedRect();
  return {};
}

QString FlameView::describe(int node) const {
  if (!tree_ || node < 0 || node >= tree_->size()) return {};
  const FlameNode& n = tree_->node(node);
  const double all = tree_->total();
  auto pct = [all](double v) {
    return all != 0 ? QString::number(100.0 * v / all, 'f', 2) : QStringLiteral("-");
  };
  QString text = QStringLiteral("<b>%1</b>").arg(n.name.toHtmlEscaped());
  if (!n.library.isEmpty()) text += QStringLiteral("<br>%1").arg(n.library.toHtmlEscaped());
  text += tr("<br>total: %1 (%2 %)<br>self: %3 (%4 %)")
              .arg(formatValue(n.total, tree_->unit), pct(n.total),
                   formatValue(n.self, tree_->unit), pct(n.self));
  if (tree_->isDiff)
    text += tr("<br>base: %1 · change: %2")
                .arg(formatValue(n.baseTotal, tree_->unit),
                     (n.total >= n.baseTotal ? QStringLiteral("+") : QString()) +
                         formatValue(n.total - n.baseTotal, tree_->unit));
  return text;
}

void FlameView::mouseMoveEvent(QMouseEvent* e) {
  const int n = nodeAt(e->position().toPoint());
  if (n != hovered_) {
    hovered_ = n;
    setCursor(n >= 0 ? Qt::PointingHandCursor : Qt::ArrowCursor);
    update();
    emit nodeHovered(n);
  }
}

void FlameView::mousePressEvent(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton) return;
  const int n = nodeAt(e->position().toPoint());
  if (n >= 0) emit nodeClicked(n);
}

void FlameView::leaveEvent(QEvent*) {
  hovered_ = -1;
  update();
  emit nodeHovered(-1);
}

void FlameView::contextMenuEvent(QContextMenuEvent* e) {
  const int n = nodeAt(e->pos());
  if (n >= 0) emit contextMenuForNode(n, e->globalPos());
}

bool FlameView::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const int n = nodeAt(help->pos());
    if (n >= 0)
      QToolTip::showText(help->globalPos(), describe(n), this);
    else
      QToolTip::hideText();
    return true;
  }
  return QWidget::event(e);
}

}  // namespace fathom::gui
