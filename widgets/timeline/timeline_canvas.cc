#include "widgets/timeline/timeline_canvas.h"

#include <QContextMenuEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <utility>

#include "widgets/common/format.h"
#include "widgets/common/theme.h"
#include "widgets/timeline/counter_plot.h"
#include "widgets/timeline/heap_memory_plot.h"
#include "widgets/timeline/ruler_ticks.h"

namespace fathom::gui {
namespace {
constexpr int kGroupHeight = 22;
constexpr int kSliceLevelHeight = 18;
constexpr int kMaxLevels = 24;
constexpr int kSummaryHeight = 30;
constexpr qint64 kMinRange = 200;  // ns

// Counter values: whole numbers with digit groups (cpufreq 1 482 000), others
// with 4 significant digits.
QString formatValue(double v) {
  if (v == std::floor(v) && std::abs(v) < 1e15) return formatCount(static_cast<int64_t>(v));
  return QString::number(v, 'g', 4);
}

}  // namespace

TimelineCanvas::TimelineCanvas(TraceSession* session, TrackListModel* model, QWidget* parent)
    : QWidget(parent),
      session_(session),
      model_(model),
      plotter_(std::make_unique<CounterPlotter>()) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(400, 120);
  connect(model_, &TrackListModel::tracksChanged, this, [this] {
    relayout();
    requestFrame();
  });
  // A new layout renumbers the tracks: drop data keyed by the old numbers.
  connect(model_, &QAbstractItemModel::modelReset, this, [this] {
    frame_ = {};
    counter_pixmaps_.clear();
  });
  relayout();  // the model may hold a layout already
}

TimelineCanvas::~TimelineCanvas() = default;

void TimelineCanvas::setBounds(qint64 start, qint64 end, qint64 origin) {
  start_ = start;
  origin_ = origin < 0 ? start : origin;
  end_ = std::max(end, start + 1);
}

void TimelineCanvas::setRange(qint64 t0, qint64 t1) {
  const qint64 span = end_ - start_;
  qint64 len = std::clamp<qint64>(t1 - t0, kMinRange, std::max(kMinRange, span + span / 10 + 4));
  // Keep the centre when the length was clamped, then keep inside the trace
  // (with a small margin so the first and last events are not on the edge).
  qint64 mid = t0 + (t1 - t0) / 2;
  t0 = mid - len / 2;
  // Tiny traces (a few ns) are shown centred in the minimum range.
  qint64 margin = std::max<qint64>(span / 20 + 2, (len - span) / 2);
  t0 = std::clamp<qint64>(t0, start_ - margin, std::max(start_ - margin, end_ + margin - len));
  t1 = t0 + len;
  if (t0 == t0_ && t1 == t1_) return;
  t0_ = t0;
  t1_ = t1;
  emit rangeChanged(t0_, t1_);
  requestFrame();
  update();
}

void TimelineCanvas::setSelection(qint64 t0, qint64 t1, QVector<int> tracks) {
  sel_t0_ = std::min(t0, t1);
  sel_t1_ = std::max(t0, t1);
  sel_tracks_ = std::move(tracks);
  update();
}

void TimelineCanvas::setFlows(QVector<FlowLink> flows) {
  flows_ = std::move(flows);
  update();
}

QPointF TimelineCanvas::flowPoint(const FlowEnd& end) const {
  const TrackLayout& L = model_->layout();
  int track = -1;
  for (int i = 0; i < L.tracks.size() && track < 0; ++i)
    if (L.tracks[i].hasSliceTrack(end.track_id)) track = i;
  if (track < 0) return {};
  const double x = xAt(end.ts);
  const TrackInfo& info = L.tracks[track];
  for (const Row& r : rows_)
    if (r.track == track) {
      const int level =
          std::clamp(info.levelOfSlice(end.slice, end.track_id, end.depth), 0, kMaxLevels - 1);
      const int strip = info.hasStateStrip() ? kStateStripHeight : 0;
      return {x, screenY(r) + 1 + strip + level * kSliceLevelHeight + kSliceLevelHeight / 2.0};
    }
  for (const Row& r : rows_)  // collapsed: the group header
    if (r.track < 0 && r.group == L.tracks[track].group) return {x, screenY(r) + r.h / 2.0};
  return {};
}

void TimelineCanvas::paintFlows(QPainter& p) {
  if (flows_.isEmpty()) return;
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  p.setClipRect(labelWidth(), kRulerHeight, width() - labelWidth(), height() - kRulerHeight);
  QColor c = isDarkPalette() ? QColor(0xff, 0xc1, 0x07) : QColor(0x6a, 0x1b, 0x9a);
  for (const FlowLink& f : flows_) {
    const QPointF a = flowPoint(f.from), b = flowPoint(f.to);
    if (a.isNull() || b.isNull()) continue;
    // A horizontal S-curve: leaves rightwards, arrives from the left, even when b is left of a.
    const double bend = std::max(30.0, std::abs(b.x() - a.x()) / 2);
    QPainterPath path(a);
    path.cubicTo(a + QPointF(bend, 0), b - QPointF(bend, 0), b);
    p.setPen(QPen(c, 1.5));
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
    QPainterPath head;
    head.moveTo(b);
    head.lineTo(b + QPointF(-8, -4));
    head.lineTo(b + QPointF(-8, 4));
    head.closeSubpath();
    p.fillPath(head, c);
  }
  p.restore();
}

void TimelineCanvas::setHighlight(int track, quint32 row, bool state) {
  highlight_track_ = track;
  highlight_row_ = row;
  highlight_state_ = state;
  update();
}

void TimelineCanvas::setScrollY(int y) {
  int max_y = std::max(0, content_height_ - scrollViewportHeight());
  y = std::clamp(y, 0, max_y);
  if (y == scroll_y_) return;
  scroll_y_ = y;
  emit scrollChanged(scroll_y_, content_height_ + pinned_height_);
  requestFrame();
  update();
}

int TimelineCanvas::trackHeight(const TrackInfo& t) const {
  switch (t.kind) {
    case TrackKind::kCpuSched:
      return 30;
    case TrackKind::kCounter:
      return t.idle_states ? 18 : 40;
    case TrackKind::kThreadState:
      return 14;
    case TrackKind::kSlices:
      return static_cast<int>(std::min<quint32>(t.depths, kMaxLevels)) * kSliceLevelHeight + 2 +
             (t.hasStateStrip() ? kStateStripHeight : 0);
    case TrackKind::kProcessSummary:
      return kSummaryHeight;
    case TrackKind::kCpuSamples:
      return 20;
    case TrackKind::kInstants:
      return 30;
    case TrackKind::kHeapDumps:
      return t.memory.isEmpty() ? 24 : 48;
  }
  return 20;
}

void TimelineCanvas::relayout() {
  rows_.clear();
  const TrackLayout& L = model_->layout();
  // Pinned tracks first, whatever their group, in a strip that does not scroll (capped at
  // half the canvas so the rest stays reachable); then the groups in order.
  int y = 0;
  for (int ti = 0; ti < L.tracks.size(); ++ti) {
    if (!model_->isPinned(ti) || model_->isHidden(ti)) continue;
    int h = trackHeight(L.tracks[ti]);
    rows_.push_back({L.tracks[ti].group, ti, y, h, true});
    y += h;
  }
  pinned_height_ = std::min(y, std::max(0, (height() - kRulerHeight) / 2));
  y = 0;
  for (int g = 0; g < L.groups.size(); ++g) {
    QVector<int> shown;
    for (int ti : L.groups[g].tracks)
      if (!model_->isHidden(ti) && !model_->isPinned(ti) && model_->matchesFilter(ti))
        shown.push_back(ti);
    if (shown.isEmpty()) continue;
    // A collapsed process shows its summary on a taller header.
    const bool collapsed = !model_->isExpanded(g) && model_->filter().pattern().isEmpty();
    const int summary = collapsed ? L.groups[g].summary : -1;
    const int header = summary >= 0 ? kSummaryHeight : kGroupHeight;
    rows_.push_back({g, -1, y, header, false, summary});
    y += header;
    if (collapsed) continue;
    for (int ti : shown) {
      int h = trackHeight(L.tracks[ti]);
      rows_.push_back({g, ti, y, h});
      y += h;
    }
  }
  content_height_ = y;
  scroll_y_ = std::clamp(scroll_y_, 0, std::max(0, content_height_ - scrollViewportHeight()));
  emit scrollChanged(scroll_y_, content_height_ + pinned_height_);
  update();
}

void TimelineCanvas::requestFrame() {
  if (!session_ || !session_->isLoaded() || width() <= labelWidth()) return;
  if (in_flight_) {
    dirty_ = true;  // coalesce: one lookup in flight, one more queued at most
    return;
  }
  FrameRequest req = currentRequest();
  in_flight_ = true;
  dirty_ = false;
  TrackLayout layout = model_->layout();
  session_->view<FrameData>(
      [layout, req](Core& core) { return fetchFrame(core.storage(), core.index, layout, req); },
      this,
      [this](FrameData f) {
        in_flight_ = false;
        applyFrame(std::move(f));
        if (dirty_) requestFrame();
        if (!isFetching()) emit frameReady();
      });
}

void TimelineCanvas::applyFrame(FrameData f) {
  frame_ = std::move(f);
  counter_pixmaps_.clear();
  const TrackLayout& L = model_->layout();
  for (auto it = frame_.tracks.cbegin(); it != frame_.tracks.cend(); ++it) {
    if (it.key() >= L.tracks.size()) continue;  // a lookup from before a new layout
    const TrackInfo& t = L.tracks[it.key()];
    if (t.kind != TrackKind::kCounter || t.idle_states) continue;
    QSize size(frame_.request.pixels, trackHeight(t) - 4);
    counter_pixmaps_.insert(it.key(), plotter_->render(it.value(), size, colorForName(t.name)));
  }
  update();
}

FrameRequest TimelineCanvas::currentRequest() const {
  FrameRequest req;
  req.t0 = t0_;
  req.t1 = t1_;
  req.pixels = width() - labelWidth();
  for (const Row& r : rows_) {
    const int y = screenY(r);
    if (y + r.h < kRulerHeight || y > height()) continue;
    if (r.track >= 0) req.tracks.push_back(r.track);
    if (r.summary >= 0) req.tracks.push_back(r.summary);
  }
  return req;
}

qint64 TimelineCanvas::timeAt(double x) const {
  double w = std::max(1, width() - labelWidth());
  return t0_ + static_cast<qint64>((x - labelWidth()) / w * static_cast<double>(t1_ - t0_));
}

double TimelineCanvas::xAt(qint64 t) const {
  double w = std::max(1, width() - labelWidth());
  return labelWidth() + static_cast<double>(t - t0_) / static_cast<double>(t1_ - t0_) * w;
}

const TimelineCanvas::Row* TimelineCanvas::rowAt(int y) const {
  if (y < kRulerHeight) return nullptr;
  const bool in_pinned = y < kRulerHeight + pinned_height_;
  for (const Row& r : rows_) {
    if (r.pinned != in_pinned) continue;
    const int ry = screenY(r);
    if (y >= ry && y < ry + r.h) return &r;
  }
  return nullptr;
}

int TimelineCanvas::trackAt(int y) const {
  const Row* r = rowAt(y);
  return r ? r->track : -1;
}

int TimelineCanvas::groupAt(int y) const {
  const Row* r = rowAt(y);
  return r && r->track < 0 ? r->group : -1;
}

QRect TimelineCanvas::trackRect(int track) const {
  for (const Row& r : rows_)
    if (track >= 0 && (r.track == track || r.summary == track))
      return QRect(labelWidth(), screenY(r), width() - labelWidth(), r.h);
  return {};
}

void TimelineCanvas::resizeEvent(QResizeEvent*) {
  relayout();  // the pinned strip's cap depends on the height
  setScrollY(scroll_y_);
  requestFrame();
}

void TimelineCanvas::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QPalette& pal = palette();
  p.fillRect(rect(), pal.color(QPalette::Base));
  const TrackLayout& L = model_->layout();
  QFont small = font();
  small.setPointSizeF(std::max(7.0, small.pointSizeF() - 1));
  p.setFont(small);
  // Scrolled rows first, clipped below the pinned strip; then the pinned strip over them.
  const QRect scrolled_clip(0, kRulerHeight + pinned_height_, width(), scrollViewportHeight());
  const QRect pinned_clip(0, kRulerHeight, width(), pinned_height_);
  QVector<const Row*> order;
  for (const Row& r : rows_)
    if (!r.pinned) order.push_back(&r);
  for (const Row& r : rows_)
    if (r.pinned) order.push_back(&r);
  for (const Row* rp : order) {
    const Row& r = *rp;
    const QRect& clip = r.pinned ? pinned_clip : scrolled_clip;
    int y = screenY(r);
    if (y + r.h < clip.top() || y > clip.bottom()) continue;
    p.setClipRect(clip);
    QRect label(0, y, labelWidth(), r.h);
    if (r.track < 0) {
      paintHeader(p, r, y);
      continue;
    }
    const TrackInfo& t = L.tracks[r.track];
    p.setPen(pal.color(QPalette::Text));
    QString name = (model_->isPinned(r.track) ? QStringLiteral("\u2691 ") : QString()) + t.name;
    const int indent = 16 + std::min(t.indent, 8) * 10;
    p.drawText(label.adjusted(indent, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft,
               p.fontMetrics().elidedText(name, Qt::ElideMiddle, labelWidth() - indent - 4));
    p.setPen(pal.color(QPalette::Midlight));
    p.drawLine(0, y + r.h - 1, width(), y + r.h - 1);
    QRect area(labelWidth(), y + 1, width() - labelWidth(), r.h - 2);
    p.save();
    p.setClipRect(area.intersected(clip));
    paintTrack(p, r, area);
    p.restore();
  }
  p.setClipRect(0, kRulerHeight, width(), height() - kRulerHeight);
  if (pinned_height_ > 0) {  // a firm line under the pinned strip
    p.setPen(QPen(pal.color(QPalette::Mid), 2));
    p.drawLine(0, kRulerHeight + pinned_height_, width(), kRulerHeight + pinned_height_);
  }
  p.setPen(pal.color(QPalette::Mid));
  p.drawLine(labelWidth() - 1, kRulerHeight, labelWidth() - 1, height());
  // Selection and cursor over the tracks.
  if (sel_t1_ > sel_t0_) {
    double x0 = std::max<double>(labelWidth(), xAt(sel_t0_)), x1 = xAt(sel_t1_);
    QColor sel = pal.color(QPalette::Highlight);
    sel.setAlpha(40);
    p.fillRect(QRectF(x0, kRulerHeight, std::max(1.0, x1 - x0), height()), sel);
    sel.setAlpha(200);
    p.setPen(sel);
    p.drawLine(QPointF(xAt(sel_t0_), kRulerHeight), QPointF(xAt(sel_t0_), height()));
    p.drawLine(QPointF(x1, kRulerHeight), QPointF(x1, height()));
  }
  if (cursor_x_ >= labelWidth()) {
    p.setPen(QPen(pal.color(QPalette::Text), 1, Qt::DashLine));
    p.drawLine(cursor_x_, kRulerHeight, cursor_x_, height());
  }
  paintFlows(p);
  p.setClipping(false);
  paintRuler(p);
}

void TimelineCanvas::paintHeader(QPainter& p, const Row& r, int y) {
  const QPalette& pal = palette();
  const TrackLayout& L = model_->layout();
  const QFont small = p.font();
  p.fillRect(QRect(0, y, width(), r.h), pal.color(QPalette::AlternateBase));
  p.setPen(pal.color(QPalette::Text));
  QFont bold = small;
  bold.setBold(true);
  p.setFont(bold);
  const QString arrow =
      model_->isExpanded(r.group) ? QStringLiteral("\u25BE ") : QStringLiteral("\u25B8 ");
  const QString text = arrow + L.groups[r.group].name;
  if (r.summary < 0) {
    // Headers span the whole row: long process names stay readable.
    p.drawText(QRect(6, y, width() - 12, r.h), Qt::AlignVCenter | Qt::AlignLeft,
               text + QStringLiteral("   (%1 tracks)").arg(L.groups[r.group].tracks.size()));
    p.setFont(small);
    return;
  }
  // Collapsed with a summary: the name in the label column, the activity beside it.
  const QRect label(6, y, labelWidth() - 10, r.h);
  p.drawText(label, Qt::AlignVCenter | Qt::AlignLeft,
             p.fontMetrics().elidedText(text, Qt::ElideMiddle, label.width()));
  p.setFont(small);
  p.setPen(pal.color(QPalette::Midlight));
  p.drawLine(0, y + r.h - 1, width(), y + r.h - 1);
  const QRect area(labelWidth(), y + 2, width() - labelWidth(), r.h - 4);
  p.save();
  p.setClipRect(area.intersected(p.clipBoundingRect().toAlignedRect()));
  paintTrack(p, Row{r.group, r.summary, r.y, r.h, r.pinned, -1}, area);
  p.restore();
}

void TimelineCanvas::paintBars(QPainter& p, const QVector<float>& values, float scale,
                               const QRect& area, const QColor& bar) {
  const int n = static_cast<int>(values.size());
  const float k = area.height() / std::max(scale, 1e-9f);
  if (frame_.request.t0 == t0_ && frame_.request.t1 == t1_ && n == area.width()) {
    // Data for exactly this view: one integer column per bucket, runs of
    // equal height merged (the raster engine fills those with memset).
    auto height = [&](int i) {
      return std::min(area.height(), static_cast<int>(values[i] * k + 0.5f));
    };
    for (int i = 0; i < n;) {
      const int h = height(i);
      int j = i + 1;
      while (j < n && height(j) == h) ++j;
      if (h > 0) p.fillRect(QRect(area.left() + i, area.bottom() + 1 - h, j - i, h), bar);
      i = j;
    }
    return;
  }
  // Older data while a lookup runs: stretch it to the current view.
  const double span = static_cast<double>(frame_.request.t1 - frame_.request.t0);
  const double scale_x = span / (t1_ - t0_);
  for (int i = 0; i < n; ++i) {
    const float u = values[i];
    if (u <= 0) continue;
    double x =
        area.left() + (i + (frame_.request.t0 - t0_) * static_cast<double>(n) / span) * scale_x;
    double h = std::min<double>(u * k, area.height());
    p.fillRect(QRectF(x, area.bottom() + 1 - h, std::max(1.0, scale_x), h), bar);
  }
}

void TimelineCanvas::setSearchMarks(QVector<qint64> ts) {
  search_marks_ = std::move(ts);
  update();
}

void TimelineCanvas::paintSearchMarks(QPainter& p) {
  if (search_marks_.isEmpty()) return;
  // One tick per pixel at most: a million matches cost a binary search and a pass over
  // those in view.
  const QColor tick(0xf5, 0x9e, 0x0b);
  auto it = std::lower_bound(search_marks_.begin(), search_marks_.end(), t0_);
  int last_x = -1;
  for (; it != search_marks_.end() && *it <= t1_; ++it) {
    const int x = static_cast<int>(xAt(*it));
    if (x < labelWidth() || x == last_x) continue;
    last_x = x;
    p.fillRect(QRect(x, kRulerHeight - 5, 1, 4), tick);
  }
}

void TimelineCanvas::paintRuler(QPainter& p) {
  const QPalette& pal = palette();
  QRect ruler(0, 0, width(), kRulerHeight);
  p.fillRect(ruler, pal.color(QPalette::Window));
  p.setPen(pal.color(QPalette::Mid));
  p.drawLine(0, kRulerHeight - 1, width(), kRulerHeight - 1);
  // Ticks over the canvas part of the ruler; the label column's part names
  // the anchor the tick labels count from, when they count from one.
  const RulerTicks ticks =
      computeRulerTicks(origin_, t0_, t1_, std::max(1, width() - labelWidth()));
  const qint64 istep = ticks.step;
  p.setPen(pal.color(QPalette::WindowText));
  for (const RulerTick& tick : ticks.ticks) {
    const double x = xAt(tick.ts);
    p.drawLine(QPointF(x, kRulerHeight - 8), QPointF(x, kRulerHeight - 1));
    p.drawText(QPointF(x + 3, kRulerHeight - 10), tick.label);
  }
  if (!ticks.anchor.isEmpty())
    p.drawText(QRect(4, 0, labelWidth() - 10, kRulerHeight - 4), Qt::AlignRight | Qt::AlignVCenter,
               ticks.anchor);
  QString info = QStringLiteral("span %1").arg(formatDuration(t1_ - t0_));
  if (sel_t1_ > sel_t0_) {
    double x0 = std::max<double>(labelWidth(), xAt(sel_t0_)),
           x1 = std::min<double>(width(), xAt(sel_t1_));
    QColor sel = pal.color(QPalette::Highlight);
    p.fillRect(QRectF(x0, kRulerHeight - 6, std::max(2.0, x1 - x0), 5), sel);
    info = QStringLiteral("selection %1").arg(formatDuration(sel_t1_ - sel_t0_));
  }
  paintSearchMarks(p);
  if (cursor_x_ >= labelWidth()) {
    QString at = formatTimestamp(timeAt(cursor_x_) - origin_, std::max<qint64>(1, istep / 100));
    QRect box = p.fontMetrics().boundingRect(at).adjusted(-4, -2, 4, 2);
    box.moveTopLeft(QPoint(std::min(cursor_x_ + 2, width() - box.width()), 1));
    p.fillRect(box, pal.color(QPalette::ToolTipBase));
    p.setPen(pal.color(QPalette::ToolTipText));
    p.drawText(box, Qt::AlignCenter, at);
  }
  p.setPen(pal.color(QPalette::WindowText));
  p.drawText(QRect(6, 0, labelWidth() - 10, kRulerHeight), Qt::AlignVCenter | Qt::AlignLeft, info);
}

void TimelineCanvas::paintTrack(QPainter& p, const Row& r, const QRect& area) {
  const TrackInfo& t = model_->layout().tracks[r.track];
  auto it = frame_.tracks.constFind(r.track);
  const bool have = it != frame_.tracks.cend();
  auto drawSpans = [&](const QVector<PaintSpan>& spans, int y, int h, bool states) {
    for (const PaintSpan& s : spans) {
      double x0 = xAt(s.start), x1 = xAt(s.end);
      if (x1 < area.left() || x0 > area.right()) continue;
      // Whole pixels: the raster engine's fast path, and no blurred edges.
      const int ix0 = static_cast<int>(std::floor(std::max<double>(x0, area.left() - 1)));
      const int ix1 = static_cast<int>(std::ceil(std::min<double>(x1, area.right() + 2)));
      QRect box(ix0, y, std::max(1, ix1 - ix0), h);
      p.fillRect(box, QColor::fromRgb(s.color));
      if (r.track == highlight_track_ && s.row == highlight_row_ && s.merged == 0 &&
          states == highlight_state_ && h > 6) {
        p.setPen(QPen(palette().color(QPalette::Text), 2));
        p.drawRect(box.adjusted(1, 1, -1, -1));
      }
      if (r.track == highlight_track_ && s.row == highlight_row_ && s.merged == 0 &&
          states == highlight_state_ && h <= 6)
        p.fillRect(box.adjusted(0, h - 2, 0, 0), palette().color(QPalette::Text));
      if (!s.label.isEmpty() && box.width() > 24 && h > 10) {
        QRect text = box.intersected(area).adjusted(3, 0, -2, 0);
        p.setPen(textColorOn(QColor::fromRgb(s.color)));
        p.drawText(text, Qt::AlignVCenter | Qt::AlignLeft,
                   p.fontMetrics().elidedText(s.label, Qt::ElideRight, text.width()));
      }
    }
  };
  switch (t.kind) {
    case TrackKind::kCpuSched:
    case TrackKind::kThreadState:
      if (!have) break;
      if (!it->utilization.isEmpty()) {
        paintBars(p, it->utilization, 1.f, area,
                  isDarkPalette() ? QColor(0x7e, 0x93, 0xd8) : QColor(0x3f, 0x51, 0xb5));
      } else if (!it->levels.isEmpty()) {
        drawSpans(it->levels[0], area.top() + 1, area.height() - 2,
                  t.kind == TrackKind::kThreadState);
      }
      break;
    case TrackKind::kSlices: {
      if (!have) break;
      int top = area.top();
      if (t.hasStateStrip()) {
        drawSpans(it->states, top, kStateStripHeight - 1, true);
        top += kStateStripHeight;
      }
      for (int d = 0; d < std::min<int>(it->levels.size(), kMaxLevels); ++d)
        drawSpans(it->levels[d], top + d * kSliceLevelHeight, kSliceLevelHeight - 1, false);
      break;
    }
    case TrackKind::kCpuSamples:
      if (have && !it->levels.isEmpty()) paintSamples(p, r.track, it->levels[0], area);
      break;
    case TrackKind::kProcessSummary:
      // Running threads per pixel (or open slices for a process without sched data).
      if (have)
        paintBars(p, it->utilization, float(t.activity_scale), area,
                  t.activity_from_sched ? QColor(0x43, 0x8e, 0xd8) : QColor(0x8e, 0x8e, 0x9e));
      break;
    case TrackKind::kCounter: {
      if (!have) break;
      if (t.idle_states) {
        // cpuidle: the idle state index while idle (deeper = darker grey);
        // 4294967295 (or -1) marks "not idle" and is left blank.
        const int n = static_cast<int>(it->buckets.size());
        const double w = static_cast<double>(area.width()) / std::max(1, n) *
                         (frame_.request.t1 - frame_.request.t0) / (t1_ - t0_);
        for (int i = 0; i < n; ++i) {
          const CounterBucket& b = it->buckets[i];
          if (!b.has_value || b.last < 0 || b.last >= 4294967295.0) continue;
          int shade = std::clamp(200 - static_cast<int>(b.last) * 40, 60, 200);
          double x = xAt(frame_.request.t0) + i * w;
          p.fillRect(QRectF(x, area.top() + 2, std::max(1.0, w), area.height() - 4),
                     QColor(shade, shade, shade));
        }
        break;
      }
      auto pm = counter_pixmaps_.constFind(r.track);
      if (pm != counter_pixmaps_.cend()) {
        QRectF target(xAt(frame_.request.t0), area.top() + 2,
                      xAt(frame_.request.t1) - xAt(frame_.request.t0), area.height() - 4);
        p.drawPixmap(target, *pm, QRectF(pm->rect()));
      }
      const bool any = std::any_of(it->buckets.cbegin(), it->buckets.cend(),
                                   [](const CounterBucket& b) { return b.has_value; });
      const QString label =
          any ? QStringLiteral("max %1").arg(t.name.contains(QLatin1String("mem.")) &&
                                                     !t.name.contains(QLatin1String("oom"))
                                                 ? formatBytes(it->vmax)
                                                 : formatValue(it->vmax))
              : QStringLiteral("no sample yet");
      // On a backdrop: a busy plot (cpufreq) ran its line through the digits.
      const QRectF text =
          p.boundingRect(area.adjusted(4, 1, 0, 0), Qt::AlignTop | Qt::AlignLeft, label);
      QColor backdrop = palette().color(QPalette::Base);
      backdrop.setAlpha(200);
      p.fillRect(text.adjusted(-2, 0, 2, 0), backdrop);
      p.setPen(palette().color(QPalette::Text));
      p.drawText(text, Qt::AlignTop | Qt::AlignLeft, label);
      break;
    }
    case TrackKind::kInstants:
      for (const TrackMarker& m : t.markers) {
        double x = xAt(m.ts);
        if (x < area.left() - 200 || x > area.right()) continue;
        p.setPen(QPen(QColor(0xc6, 0x28, 0x28), 2));
        p.drawLine(QPointF(x, area.top() + 2), QPointF(x, area.bottom()));
        QPainterPath tri;
        tri.moveTo(x - 5, area.top() + 2);
        tri.lineTo(x + 5, area.top() + 2);
        tri.lineTo(x, area.top() + 10);
        tri.closeSubpath();
        p.fillPath(tri, QColor(0xc6, 0x28, 0x28));
        p.setPen(palette().color(QPalette::Text));
        const int tw = p.fontMetrics().horizontalAdvance(m.label);
        const double tx = x + 7 + tw > area.right() ? x - 7 - tw : x + 7;
        p.drawText(QPointF(tx, area.center().y() + 4), m.label);
      }
      break;
    case TrackKind::kHeapDumps:
      paintHeapMemory(
          p, t, area, [this](qint64 ts) { return xAt(ts); }, palette().color(QPalette::Text));
      for (const TrackMarker& m : t.markers) {
        if (!t.memory.isEmpty() && m.kind == QLatin1String("native")) continue;  // on the curve
        double x = xAt(m.ts);
        if (x < area.left() - 10 || x > area.right() + 10) continue;
        QPointF c(x, area.center().y());
        QPainterPath d;
        d.moveTo(c.x(), c.y() - 8);
        d.lineTo(c.x() + 8, c.y());
        d.lineTo(c.x(), c.y() + 8);
        d.lineTo(c.x() - 8, c.y());
        d.closeSubpath();
        p.fillPath(d, m.kind == QLatin1String("graph") ? QColor(0x6a, 0x1b, 0x9a)
                                                       : QColor(0xf5, 0x7c, 0x00));
      }
      break;
  }
}

// A down-pointing chevron per sample (per pixel column with samples), as Perfetto marks
// CPU samples; the selected one filled in the text colour.
void TimelineCanvas::paintSamples(QPainter& p, int track, const QVector<PaintSpan>& spans,
                                  const QRect& area) {
  const QColor fill(0x8e, 0x24, 0xaa);
  const double top = area.top() + 2, h = std::min(10, area.height() - 4);
  double last = -1e9;
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  for (const PaintSpan& s : spans) {
    const double x = xAt(s.start);
    if (x < area.left() - 6 || x > area.right() + 6) continue;
    const bool selected = track == highlight_track_ && s.row == highlight_row_;
    if (x - last < 3 && !selected) continue;  // a chevron every few pixels at most
    last = x;
    QPainterPath v;
    v.moveTo(x - 4, top);
    v.lineTo(x + 4, top);
    v.lineTo(x, top + h);
    v.closeSubpath();
    p.fillPath(v, selected ? palette().color(QPalette::Text) : fill);
  }
  p.restore();
}

const PaintSpan* TimelineCanvas::spanAt(int track, int depth, qint64 t, double slop_px) const {
  auto it = frame_.tracks.constFind(track);
  if (it == frame_.tracks.cend() || depth < -1 || depth >= it->levels.size()) return nullptr;
  const QVector<PaintSpan>& spans = depth < 0 ? it->states : it->levels[depth];
  const double ns_per_px = static_cast<double>(t1_ - t0_) / std::max(1, width() - labelWidth());
  const qint64 slop = static_cast<qint64>(slop_px * ns_per_px);
  const PaintSpan* best = nullptr;
  for (const PaintSpan& s : spans) {
    if (t >= s.start && t < std::max(s.end, s.start + 1)) return &s;
    if (t >= s.start - slop && t < s.end + slop) best = &s;
  }
  return best;
}

void TimelineCanvas::mousePressEvent(QMouseEvent* e) {
  press_pos_ = e->pos();
  press_t0_ = t0_;
  press_t1_ = t1_;
  press_scroll_ = scroll_y_;
  press_time_ = timeAt(e->position().x());
  if (e->button() == Qt::LeftButton && e->pos().x() < labelWidth()) {
    int g = groupAt(e->pos().y());
    if (g >= 0) model_->setExpanded(g, !model_->isExpanded(g));
    drag_ = Drag::kNone;
    return;
  }
  bool pan = e->button() == Qt::MiddleButton || e->pos().y() < kRulerHeight ||
             (e->button() == Qt::LeftButton && (e->modifiers() & Qt::ShiftModifier));
  drag_ = pan ? Drag::kPan : e->button() == Qt::LeftButton ? Drag::kSelect : Drag::kNone;
}

void TimelineCanvas::mouseMoveEvent(QMouseEvent* e) {
  cursor_x_ = e->pos().x();
  if (drag_ == Drag::kPan) {
    double ns_per_px =
        static_cast<double>(press_t1_ - press_t0_) / std::max(1, width() - labelWidth());
    qint64 dt = static_cast<qint64>((press_pos_.x() - e->pos().x()) * ns_per_px);
    setRange(press_t0_ + dt, press_t1_ + dt);
    setScrollY(press_scroll_ + press_pos_.y() - e->pos().y());
  } else if (drag_ == Drag::kSelect && (e->pos() - press_pos_).manhattanLength() > 3) {
    int y0 = std::min(press_pos_.y(), e->pos().y()), y1 = std::max(press_pos_.y(), e->pos().y());
    QVector<int> tracks;
    for (const Row& r : rows_) {
      int y = screenY(r);
      if (!r.pinned && y < kRulerHeight + pinned_height_) continue;  // scrolled under the strip
      if (y + r.h <= y0 || y > y1) continue;
      if (r.track >= 0) {
        tracks.push_back(r.track);
      } else if (!model_->isExpanded(r.group)) {
        // A collapsed process in the area: all its tracks (CPU time, states, slices and
        // samples of its threads), as an area over a collapsed group selects in Perfetto.
        for (int ti : model_->layout().groups[r.group].tracks)
          if (!model_->isHidden(ti) && !tracks.contains(ti)) tracks.push_back(ti);
      }
    }
    setSelection(press_time_, timeAt(e->position().x()), tracks);
  }
  update();
}

void TimelineCanvas::mouseReleaseEvent(QMouseEvent* e) {
  Drag drag = std::exchange(drag_, Drag::kNone);
  if (drag != Drag::kSelect) return;
  if ((e->pos() - press_pos_).manhattanLength() > 3) {
    emit selectionMade(sel_t0_, sel_t1_, sel_tracks_);
    return;
  }
  const Row* hit = rowAt(e->pos().y());
  if (hit && hit->track < 0) {
    // A click on a collapsed process (its summary or header) opens it, as a click on a
    // Perfetto group's collapsed row does: the summary is an aggregate, so what ran there is
    // read from the thread tracks that now show in its place.
    if (!model_->isExpanded(hit->group)) model_->setExpanded(hit->group, true);
    return;
  }
  int track = trackAt(e->pos().y());
  if (track < 0) return;
  qint64 t = timeAt(e->position().x());
  const TrackInfo& info = model_->layout().tracks[track];
  quint32 row = 0;
  bool state = false;
  if (info.kind == TrackKind::kSlices) {
    int y = e->pos().y() - trackRect(track).top() - 1;
    if (info.hasStateStrip()) {
      state = y < kStateStripHeight;
      y -= kStateStripHeight;
    }
    const PaintSpan* s = spanAt(track, state ? -1 : std::max(0, y) / kSliceLevelHeight, t, 3);
    if (!s) return;
    row = s->row;
  } else if (info.kind == TrackKind::kCpuSamples) {
    const PaintSpan* s = spanAt(track, 0, t, 5);
    if (!s) return;
    row = s->row;
  } else if (info.kind == TrackKind::kCpuSched || info.kind == TrackKind::kThreadState) {
    const PaintSpan* s = spanAt(track, 0, t, 3);
    if (!s) {
      if (showsUtilization(track)) zoomToCpuSlicesAt(t);
      return;
    }
    row = s->row;
    state = info.kind == TrackKind::kThreadState;
  }
  emit clicked(track, row, t, state);
}

bool TimelineCanvas::showsUtilization(int track) const {
  auto it = frame_.tracks.constFind(track);
  return it != frame_.tracks.cend() && !it->utilization.isEmpty();
}

// A click on a utilisation bar zooms around it to where the CPU tracks draw
// their slices, a typical slice a few pixels wide.
void TimelineCanvas::zoomToCpuSlicesAt(qint64 t) {
  const double typical = model_->layout().cpu_typical_slice_ns;
  const int px = std::max(1, width() - labelWidth());
  qint64 span = static_cast<qint64>(typical * px / 4);
  span = std::clamp<qint64>(span, 1000, std::max<qint64>(1000, (t1_ - t0_) / 4));
  setRange(t - span / 2, t + span / 2);
}

void TimelineCanvas::wheelEvent(QWheelEvent* e) {
  const QPoint d = e->angleDelta();
  if (e->modifiers() & Qt::ControlModifier) {
    // Zoom around the time under the cursor.
    double factor = std::pow(0.85, d.y() / 120.0);
    double x = e->position().x();
    qint64 at = timeAt(std::max<double>(x, labelWidth()));
    qint64 t0 = at - static_cast<qint64>((at - t0_) * factor);
    qint64 t1 = at + static_cast<qint64>((t1_ - at) * factor);
    setRange(t0, t1);
  } else if ((e->modifiers() & Qt::ShiftModifier) || d.x() != 0) {
    int dx = d.x() != 0 ? d.x() : d.y();
    qint64 dt = static_cast<qint64>(-dx / 120.0 * 0.1 * (t1_ - t0_));
    setRange(t0_ + dt, t1_ + dt);
  } else {
    setScrollY(scroll_y_ - d.y() / 2);
  }
  e->accept();
}

void TimelineCanvas::leaveEvent(QEvent*) {
  cursor_x_ = -1;
  update();
}

void TimelineCanvas::contextMenuEvent(QContextMenuEvent* e) {
  int track = trackAt(e->pos().y());
  if (track >= 0) emit contextMenuForTrack(track, e->globalPos());
}

}  // namespace fathom::gui
