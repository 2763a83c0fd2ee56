// The painted part of the timeline: ruler, track labels, tracks, cursor and
// selection. Data comes from fetchFrame() on the session's view lane; while a
// lookup runs the canvas keeps painting the last frame (spans carry absolute
// times, so a pan or zoom is drawn at once and filled in when data arrives).
#pragma once

#include <QHash>
#include <QPixmap>
#include <QPointer>
#include <QWidget>
#include <algorithm>
#include <memory>

#include "widgets/common/trace_session.h"
#include "widgets/timeline/timeline_data.h"
#include "widgets/timeline/track_model.h"

namespace fathom::gui {

class CounterPlotter;

class TimelineCanvas : public QWidget {
  Q_OBJECT
 public:
  // The track-name column: 220 px up to a 1760 px wide canvas, then an eighth
  // of the width up to 420 px, so a 4K window shows long process names whole.
  static constexpr int kMinLabelWidth = 220;
  static constexpr int kMaxLabelWidth = 420;
  int labelWidth() const { return std::clamp(width() / 8, kMinLabelWidth, kMaxLabelWidth); }
  static constexpr int kRulerHeight = 26;

  TimelineCanvas(TraceSession* session, TrackListModel* model, QWidget* parent = nullptr);
  ~TimelineCanvas() override;

  // The navigable range; the ruler counts from `origin` (the trace start, which a padded
  // range may begin before); origin < 0: from `start`.
  void setBounds(qint64 start, qint64 end, qint64 origin = -1);
  qint64 origin() const { return origin_; }
  void setRange(qint64 t0, qint64 t1);  // clamps to the trace, refetches
  qint64 rangeStart() const { return t0_; }
  qint64 rangeEnd() const { return t1_; }
  void setSelection(qint64 t0, qint64 t1, QVector<int> tracks);
  qint64 selectionStart() const { return sel_t0_; }
  qint64 selectionEnd() const { return sel_t1_; }
  const QVector<int>& selectionTracks() const { return sel_tracks_; }
  // True while a lookup is in flight or queued (tests and the bench wait on it).
  bool isFetching() const { return in_flight_ || dirty_; }
  // Outlines the span of `row` on `track` (the clicked event); -1: none.
  // `state`: the row is a thread_state row on the track's state strip.
  void setHighlight(int track, quint32 row, bool state = false);
  int highlightTrack() const { return highlight_track_; }
  quint32 highlightRow() const { return highlight_row_; }
  // Flow arrows of the clicked slice, drawn from the end of the source slice to the start
  // of the destination; an end whose track is collapsed points at its group header.
  void setFlows(QVector<FlowLink> flows);
  // Search matches' start times (sorted), drawn as ticks along the bottom of the ruler.
  void setSearchMarks(QVector<qint64> ts);
  const QVector<qint64>& searchMarks() const { return search_marks_; }
  const QVector<FlowLink>& flows() const { return flows_; }
  // Where a flow end is drawn (widget coordinates); null when its track is not laid out.
  QPointF flowPoint(const FlowEnd& end) const;
  int scrollY() const { return scroll_y_; }
  void setScrollY(int y);
  int contentHeight() const { return content_height_; }
  // The lookup the current range and scroll position need, and installing its
  // result (normally done by the view-lane callback; the bench calls both).
  FrameRequest currentRequest() const;
  void applyFrame(FrameData frame);
  // Track index under widget y (-1: none) and its row rectangle.
  int trackAt(int y) const;
  QRect trackRect(int track) const;  // also a process summary's header row
  static constexpr int kStateStripHeight = 6;
  int groupAt(int y) const;  // group header under y, -1 otherwise
  qint64 timeAt(double x) const;
  double xAt(qint64 t) const;

 signals:
  void rangeChanged(qint64 t0, qint64 t1);
  void scrollChanged(int y, int content_height);
  void selectionMade(qint64 t0, qint64 t1, const QVector<int>& tracks);  // drag finished
  // A click on a track (row: span row; state: a thread_state row on a slice track's strip).
  void clicked(int track, quint32 row, qint64 ts, bool state);
  void contextMenuForTrack(int track, const QPoint& global_pos);
  void frameReady();

 protected:
  void paintEvent(QPaintEvent*) override;
  void resizeEvent(QResizeEvent*) override;
  void mousePressEvent(QMouseEvent*) override;
  void mouseMoveEvent(QMouseEvent*) override;
  void mouseReleaseEvent(QMouseEvent*) override;
  void wheelEvent(QWheelEvent*) override;
  void leaveEvent(QEvent*) override;
  void contextMenuEvent(QContextMenuEvent*) override;

 private:
  struct Row {
    int group = -1;
    int track = -1;    // -1: group header
    int y = 0, h = 0;  // y: in the pinned strip (pinned rows) or in the scrolled content
    bool pinned = false;
    int summary = -1;  // group header: the process summary drawn on it (collapsed)
  };
  // Where a row is drawn: pinned rows stay under the ruler, the rest scroll below them.
  int screenY(const Row& r) const {
    return r.pinned ? kRulerHeight + r.y : kRulerHeight + pinned_height_ + r.y - scroll_y_;
  }
  int scrollViewportHeight() const { return height() - kRulerHeight - pinned_height_; }
  const Row* rowAt(int y) const;  // the row under widget y, pinned strip first
  void relayout();
  void requestFrame();
  int trackHeight(const TrackInfo& t) const;
  void paintRuler(QPainter& p);
  void paintFlows(QPainter& p);
  void paintSearchMarks(QPainter& p);
  void paintTrack(QPainter& p, const Row& r, const QRect& area);
  void paintHeader(QPainter& p, const Row& r, int y);
  // One bar per pixel column: values[i] / scale of the area's height.
  void paintBars(QPainter& p, const QVector<float>& values, float scale, const QRect& area,
                 const QColor& color);
  void paintSamples(QPainter& p, int track, const QVector<PaintSpan>& spans, const QRect& area);
  // depth -1: the state strip.
  const PaintSpan* spanAt(int track, int depth, qint64 t, double slop_px) const;
  bool showsUtilization(int track) const;
  void zoomToCpuSlicesAt(qint64 t);

  TraceSession* session_;
  TrackListModel* model_;
  std::unique_ptr<CounterPlotter> plotter_;
  qint64 start_ = 0, end_ = 1, t0_ = 0, t1_ = 1, origin_ = 0;
  qint64 sel_t0_ = 0, sel_t1_ = 0;
  QVector<int> sel_tracks_;
  QVector<Row> rows_;
  int content_height_ = 0, scroll_y_ = 0;
  int pinned_height_ = 0;  // the strip of pinned tracks under the ruler
  FrameData frame_;
  QHash<int, QPixmap> counter_pixmaps_;  // for frame_
  bool in_flight_ = false, dirty_ = false;
  int cursor_x_ = -1;
  int highlight_track_ = -1;
  quint32 highlight_row_ = 0;
  bool highlight_state_ = false;
  QVector<FlowLink> flows_;
  QVector<qint64> search_marks_;
  // Mouse gestures: select (left drag on tracks), pan (ruler / middle / shift).
  enum class Drag { kNone, kSelect, kPan } drag_ = Drag::kNone;
  QPoint press_pos_;
  qint64 press_t0_ = 0, press_t1_ = 0, press_time_ = 0;
  int press_scroll_ = 0;
};

}  // namespace fathom::gui
