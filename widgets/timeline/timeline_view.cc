#include "widgets/timeline/timeline_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMenu>
#include <QScrollBar>
#include <QSplitter>
#include <QStandardItemModel>
#include <QToolBar>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>
#include <QWidgetAction>
#include <tuple>

#include "core/storage/trace_storage.h"
#include "widgets/common/format.h"
#include "widgets/timeline/timeline_canvas.h"

namespace fathom::gui {
namespace {
// Details rows of a flow: the slice and track at the other end.
constexpr int kFlowSliceRole = Qt::UserRole + 1;
constexpr int kFlowTrackRole = Qt::UserRole + 2;

// Physical key positions of W, A, S, D (QWERTY names) as native scan codes:
// X11/Wayland keycodes (evdev + 8), Windows set-1 scan codes, macOS kVK codes.
enum class Wasd { kNone, kW, kA, kS, kD };
Wasd wasdFromScanCode(quint32 code) {
#if defined(Q_OS_WIN)
  switch (code) {
    case 0x11:
      return Wasd::kW;
    case 0x1e:
      return Wasd::kA;
    case 0x1f:
      return Wasd::kS;
    case 0x20:
      return Wasd::kD;
  }
#elif defined(Q_OS_MACOS)
  switch (code) {
    case 13:
      return Wasd::kW;
    case 0:
      return Wasd::kA;
    case 1:
      return Wasd::kS;
    case 2:
      return Wasd::kD;
  }
#else
  switch (code) {
    case 25:
      return Wasd::kW;
    case 38:
      return Wasd::kA;
    case 39:
      return Wasd::kS;
    case 40:
      return Wasd::kD;
  }
#endif
  return Wasd::kNone;
}

}  // namespace

TimelineView::TimelineView(TraceSession* session, QWidget* parent)
    : QWidget(parent), session_(session), model_(new TrackListModel(this)) {
  setFocusPolicy(Qt::StrongFocus);
  canvas_ = new TimelineCanvas(session, model_, this);
  vscroll_ = new QScrollBar(Qt::Vertical, this);

  auto* bar = bar_ = new QToolBar(this);
  bar->setIconSize(QSize(16, 16));
  back_ = bar->addAction(tr("Back"), this, &TimelineView::goBack);
  back_->setToolTip(tr("Previous view (Alt+Left)"));
  forward_ = bar->addAction(tr("Forward"), this, &TimelineView::goForward);
  forward_->setToolTip(tr("Next view (Alt+Right)"));
  bar->addAction(tr("Fit selection"), this, &TimelineView::fitSelection)->setToolTip(tr("F"));
  bar->addAction(tr("Whole trace"), this, [this] {
    pushHistory();
    showWholeTrace();
  });
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("Filter tracks (regex)"));
  filter_->setClearButtonEnabled(true);
  filter_->setMaximumWidth(200);
  filter_->setMinimumWidth(90);
  bar->addWidget(filter_);
  connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
    QRegularExpression re(text, QRegularExpression::CaseInsensitiveOption);
    filter_->setStyleSheet(re.isValid() ? QString() : QStringLiteral("color: #c62828"));
    if (re.isValid()) model_->setFilter(re);
  });
  // The track list: check = shown; the context menu of a track pins/hides it.
  auto* tracks_button = new QToolButton(this);
  tracks_button->setText(tr("Tracks"));
  tracks_button->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(tracks_button);
  auto* list = new QTreeView;
  list->setModel(model_);
  list->setHeaderHidden(true);
  list->setMinimumSize(320, 400);
  auto* list_action = new QWidgetAction(menu);
  list_action->setDefaultWidget(list);
  menu->addAction(list_action);
  tracks_button->setMenu(menu);
  bar->addWidget(tracks_button);

  details_model_ = new QStandardItemModel(this);
  details_ = new QTreeView(this);
  details_->setModel(details_model_);
  details_->setRootIsDecorated(true);
  details_->setUniformRowHeights(true);
  connect(details_, &QTreeView::doubleClicked, this, [this](const QModelIndex& index) {
    QVariant slice = index.data(kFlowSliceRole);
    if (slice.isValid()) goToSlice(index.data(kFlowTrackRole).toUInt(), slice.toUInt());
  });

  auto* canvas_box = new QWidget(this);
  auto* hl = new QHBoxLayout(canvas_box);
  hl->setContentsMargins(0, 0, 0, 0);
  hl->setSpacing(0);
  hl->addWidget(canvas_, 1);
  hl->addWidget(vscroll_);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(canvas_box);
  split->addWidget(details_);
  split->setStretchFactor(0, 4);
  split->setStretchFactor(1, 1);
  split->setChildrenCollapsible(false);
  split->setSizes({700, 160});
  details_model_->setHorizontalHeaderLabels(
      {tr("Click an event for its details; drag across tracks to select an area")});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(bar);
  layout->addWidget(split, 1);

  connect(canvas_, &TimelineCanvas::scrollChanged, this, [this](int y, int h) {
    QSignalBlocker block(vscroll_);
    vscroll_->setRange(0, std::max(0, h - canvas_->height() + TimelineCanvas::kRulerHeight));
    vscroll_->setPageStep(canvas_->height());
    vscroll_->setValue(y);
  });
  connect(vscroll_, &QScrollBar::valueChanged, canvas_, &TimelineCanvas::setScrollY);
  connect(canvas_, &TimelineCanvas::selectionMade, this, &TimelineView::selectArea);
  connect(canvas_, &TimelineCanvas::clicked, this, &TimelineView::showDetails);
  connect(canvas_, &TimelineCanvas::contextMenuForTrack, this, [this](int track, QPoint pos) {
    QMenu m;
    bool pinned = model_->isPinned(track);
    m.addAction(pinned ? tr("Unpin") : tr("Pin to top"), this,
                [this, track, pinned] { model_->setPinned(track, !pinned); });
    m.addAction(tr("Hide"), this, [this, track] { model_->setHidden(track, true); });
    m.exec(pos);
  });
  if (session_) {
    connect(session_, &TraceSession::loaded, this, &TimelineView::onLoaded);
    if (session_->isLoaded()) onLoaded();
  }
}

void TimelineView::onLoaded() {
  canvas_->setBounds(session_->traceStart(), session_->traceEnd());
  ++pending_;
  // The layout first (the first paint waits for it), the process summaries after it.
  session_->query<TrackLayout>(
      [](Core& c) { return buildTrackLayout(c.storage(), c.index, false); }, this,
      [this](TrackLayout layout) {
        --pending_;
        // Heap dumps may sit outside the trace bounds (they do not move
        // them): widen the navigable range so every diamond can be
        // reached.
        std::tie(start_, end_) =
            navigableBounds(layout, session_->traceStart(), session_->traceEnd());
        canvas_->setBounds(start_, end_, session_->traceStart());
        model_->setLayout(std::move(layout));
        if (history_.isEmpty()) showWholeTrace();
        attachSummaries();
        emit tracksReady();
      });
}

void TimelineView::attachSummaries() {
  ++pending_;
  const int generation = ++layout_generation_;
  TrackLayout layout = model_->layout();
  session_->query<QHash<int, TrackInfo>>(
      [layout](Core& c) { return processSummaries(layout, c.storage(), c.index); }, this,
      [this, generation](QHash<int, TrackInfo> tracks) {
        --pending_;
        // A result for an older layout (another trace loaded since) is dropped.
        if (generation == layout_generation_) model_->updateTracks(tracks);
      });
}

void TimelineView::showWholeTrace() {
  // A small margin keeps events at the very start and end off the edges.
  qint64 a = start_, b = end_, pad = std::max<qint64>(2, (b - a) / 50);
  navigate(a - pad, b + pad, true);
}

bool TimelineView::isBusy() const { return pending_ > 0 || canvas_->isFetching(); }

void TimelineView::setVisibleRange(qint64 t0, qint64 t1) { navigate(t0, t1, true); }

void TimelineView::navigate(qint64 t0, qint64 t1, bool record) {
  canvas_->setRange(t0, t1);
  if (record) pushHistory();
}

void TimelineView::pushHistory() {
  QPair<qint64, qint64> now{canvas_->rangeStart(), canvas_->rangeEnd()};
  if (history_pos_ >= 0 && history_[history_pos_] == now) return;
  history_ = history_.mid(0, history_pos_ + 1);
  history_.push_back(now);
  history_pos_ = static_cast<int>(history_.size() - 1);
}

void TimelineView::goBack() {
  // Record where wheel/drag navigation left us before stepping back.
  pushHistory();
  if (history_pos_ <= 0) return;
  --history_pos_;
  canvas_->setRange(history_[history_pos_].first, history_[history_pos_].second);
}

void TimelineView::goForward() {
  if (history_pos_ + 1 >= history_.size()) return;
  ++history_pos_;
  canvas_->setRange(history_[history_pos_].first, history_[history_pos_].second);
}

void TimelineView::fitSelection() {
  qint64 a = canvas_->selectionStart(), b = canvas_->selectionEnd();
  if (b <= a) return;
  pushHistory();
  qint64 pad = (b - a) / 20;
  navigate(a - pad, b + pad, true);
}

void TimelineView::setSelection(qint64 t0, qint64 t1) {
  // A time-only selection covers every CPU track, as a drag over them would.
  QVector<int> tracks;
  const TrackLayout& L = model_->layout();
  for (int i = 0; i < L.tracks.size(); ++i)
    if (L.tracks[i].kind == TrackKind::kCpuSched) tracks.push_back(i);
  selectArea(t0, t1, tracks);
}

void TimelineView::selectArea(qint64 t0, qint64 t1, const QVector<int>& tracks) {
  if (t1 < t0) std::swap(t0, t1);
  canvas_->setSelection(t0, t1, tracks);
  if (t1 == t0) {
    emit selectionChanged(t0, t1, {}, {});
    return;
  }
  ++pending_;
  TrackLayout layout = model_->layout();
  session_->query<SelectionStats>(
      [layout, t0, t1, tracks](Core& c) {
        return computeSelection(c.storage(), c.index, layout, t0, t1, tracks);
      },
      this,
      [this](SelectionStats stats) {
        --pending_;
        showStats(stats);
        emit selectionChanged(stats.t0, stats.t1, stats.cpus, stats.utids);
        emit selectionStatsReady();
      });
}

void TimelineView::showStats(const SelectionStats& s) {
  stats_ = s;
  details_model_->clear();
  details_model_->setHorizontalHeaderLabels(
      {tr("Selection %1").arg(formatDuration(s.t1 - s.t0)), tr("Value"), tr("Share")});
  if (!s.threads.isEmpty()) {
    qint64 total = 0;
    for (const auto& p : s.processes) total += p.second;
    auto* cpu = new QStandardItem(tr("CPU time by process (%1 CPUs)").arg(s.cpus.size()));
    details_model_->appendRow({cpu, new QStandardItem(formatDuration(total)), new QStandardItem});
    QHash<qint64, QStandardItem*> procs;
    for (const auto& [upid, ns] : s.processes) {
      auto* item = new QStandardItem(s.processNames.value(upid));
      cpu->appendRow(
          {item, new QStandardItem(formatDuration(ns)),
           new QStandardItem(QString::number(100.0 * ns / std::max<qint64>(1, total), 'f', 1) +
                             " %")});
      procs.insert(upid, item);
    }
    for (const auto& t : s.threads)
      procs.value(t.upid)->appendRow(
          {new QStandardItem(t.thread), new QStandardItem(formatDuration(t.ns)),
           new QStandardItem(QString::number(100.0 * t.ns / std::max<qint64>(1, total), 'f', 1) +
                             " %")});
    details_->expand(cpu->index());
  }
  auto share = [](qint64 part, qint64 whole) {
    return new QStandardItem(QString::number(100.0 * part / std::max<qint64>(1, whole), 'f', 1) +
                             " %");
  };
  if (!s.states.isEmpty()) {
    qint64 total = 0;
    for (const auto& st : s.states) total += st.ns;
    auto* root = new QStandardItem(tr("Thread states (%1 threads)").arg(s.stateTracks));
    details_model_->appendRow({root, new QStandardItem(formatDuration(total)), new QStandardItem});
    for (const auto& st : s.states) {
      auto* item = new QStandardItem(tr("%1  ×%2").arg(st.state).arg(st.count));
      root->appendRow({item, new QStandardItem(formatDuration(st.ns)), share(st.ns, total)});
      for (const auto& [thread, ns] : st.threads)
        item->appendRow(
            {new QStandardItem(thread), new QStandardItem(formatDuration(ns)), share(ns, st.ns)});
    }
    details_->expand(root->index());
  }
  if (!s.slices.isEmpty()) {
    qint64 total = 0;
    for (const auto& sl : s.slices) total += sl.wallNs;
    auto* root = new QStandardItem(tr("Slices by name (%1 tracks)").arg(s.sliceTracks));
    details_model_->appendRow({root, new QStandardItem(formatDuration(total)), new QStandardItem});
    for (const auto& sl : s.slices) {
      auto* item = new QStandardItem(tr("%1  ×%2").arg(sl.name).arg(sl.count));
      item->setToolTip(tr("%1: %2 occurrences, wall time inside the selection %3, average %4")
                           .arg(sl.name)
                           .arg(sl.count)
                           .arg(formatDuration(sl.wallNs))
                           .arg(formatDuration(sl.wallNs / std::max<qint64>(1, sl.count))));
      root->appendRow(
          {item, new QStandardItem(formatDuration(sl.wallNs)), share(sl.wallNs, total)});
    }
    details_->expand(root->index());
  }
  for (const auto& c : s.counters) {
    auto* item = new QStandardItem(c.name);
    details_model_->appendRow(
        {item, new QStandardItem(tr("%1 samples").arg(c.count)), new QStandardItem});
    auto add = [&](const QString& k, double v) {
      item->appendRow({new QStandardItem(k), new QStandardItem(QString::number(v, 'g', 10)),
                       new QStandardItem});
    };
    add(tr("min"), c.min);
    add(tr("max"), c.max);
    add(tr("avg (time-weighted)"), c.avg);
    add(tr("delta"), c.delta);
    details_->expand(item->index());
  }
  details_->header()->resizeSections(QHeaderView::ResizeToContents);
}

void TimelineView::showDetails(int track, quint32 row, qint64 ts, bool state) {
  const TrackLayout& L = model_->layout();
  if (track < 0 || track >= L.tracks.size()) return;
  TrackInfo info = L.tracks[track];
  state = state && (info.kind == TrackKind::kThreadState || info.hasStateStrip());
  if (state && info.kind == TrackKind::kSlices) {  // the strip: details of the state
    info.kind = TrackKind::kThreadState;
    info.utid = quint32(info.state_utid);
  }
  canvas_->setHighlight(track, row, state);
  if (info.kind == TrackKind::kHeapDumps && !info.markers.isEmpty()) {
    const TrackMarker* best = &info.markers[0];
    for (const TrackMarker& m : info.markers)
      if (std::llabs(m.ts - ts) < std::llabs(best->ts - ts)) best = &m;
    emit heapProfileActivated(best->upid, best->ts, best->kind);
  }
  if (info.kind == TrackKind::kCpuSamples && info.samples) {
    const qsizetype i = info.samples->rows.indexOf(row);
    if (i >= 0) emit cpuSampleActivated(info.utid, info.samples->ts[i]);
  }
  ++pending_;
  qint64 start = session_->traceStart();
  session_->query<Details>(
      [info, row, ts, start](Core& c) {
        return computeDetails(c.storage(), c.index, info, row, ts, start);
      },
      this,
      [this](Details d) {
        --pending_;
        details_model_->clear();
        details_model_->setHorizontalHeaderLabels({d.title, tr("Value")});
        int flow = 0;
        for (const auto& [k, v] : d.fields) {
          auto* key = new QStandardItem(k);
          auto* value = new QStandardItem(v);
          // Flow rows carry the slice at the other end: double-click goes there.
          if ((k == QLatin1String("Flow to") || k == QLatin1String("Flow from")) &&
              flow < d.flows.size()) {
            const FlowLink& f = d.flows[flow++];
            const FlowEnd& other = f.outgoing ? f.to : f.from;
            for (auto* item : {key, value}) {
              item->setData(other.slice, kFlowSliceRole);
              item->setData(other.track_id, kFlowTrackRole);
              item->setToolTip(tr("Double-click to go to this slice"));
            }
          }
          details_model_->appendRow({key, value});
        }
        canvas_->setFlows(d.flows);
        details_->header()->resizeSections(QHeaderView::ResizeToContents);
        emit detailsReady();
      });
}

int TimelineView::trackIndexOf(TrackKind kind, quint32 ref) const {
  const TrackLayout& L = model_->layout();
  for (int i = 0; i < L.tracks.size(); ++i) {
    const TrackInfo& t = L.tracks[i];
    // A thread's states are its state track, or the strip on its slice track.
    if (kind == TrackKind::kThreadState && t.hasStateStrip() && t.state_utid == qint64(ref))
      return i;
    if (t.kind != kind) continue;
    if ((kind == TrackKind::kCpuSched && t.cpu == ref) ||
        (kind == TrackKind::kThreadState && t.utid == ref) ||
        (kind == TrackKind::kSlices && t.hasSliceTrack(ref)) ||
        (kind != TrackKind::kCpuSched && kind != TrackKind::kThreadState &&
         kind != TrackKind::kSlices && t.track_id == ref))
      return i;
  }
  return -1;
}

void TimelineView::centreOn(int track, qint64 ts, qint64 dur) {
  // Keep the zoom when the event is at least ~2 % of the view and fits with margins; else
  // zoom so it takes about a fifth of the width (instants: a 20 us window).
  const qint64 d = std::max<qint64>(dur, 0);
  qint64 len = canvas_->rangeEnd() - canvas_->rangeStart();
  if (d == 0)
    len = std::min<qint64>(len, 20000);
  else if (len < d * 3 / 2 || len > d * 50)
    len = d * 5;
  len = std::max<qint64>(len, 10);
  const qint64 mid = ts + d / 2;
  navigate(mid - len / 2, mid + len / 2, true);
  scrollTrackIntoView(track);
}

void TimelineView::scrollTrackIntoView(int track) {
  if (track < 0) return;
  const QRect r = canvas_->trackRect(track);
  if (r.isValid() && (r.top() < TimelineCanvas::kRulerHeight || r.bottom() > canvas_->height()))
    canvas_->setScrollY(canvas_->scrollY() + r.top() - canvas_->height() / 3);
}

void TimelineView::keepHighlightInView() { scrollTrackIntoView(canvas_->highlightTrack()); }

void TimelineView::revealEvent(TrackKind kind, quint32 ref, quint32 row, qint64 ts, qint64 dur) {
  const int track = trackIndexOf(kind, ref);
  if (track >= 0) {
    const TrackInfo& info = model_->layout().tracks[track];
    model_->setExpanded(info.group, true);
    // A track hidden by hand would leave the match invisible.
    model_->setHidden(track, false);
  }
  centreOn(track, ts, dur);
  if (track >= 0) showDetails(track, row, ts, kind == TrackKind::kThreadState);
}

void TimelineView::revealThread(quint32 utid) {
  int track = trackIndexOf(TrackKind::kThreadState, utid);
  // A thread known only by its CPU samples (no sched data): its sample track.
  for (int i = 0; track < 0 && i < model_->layout().tracks.size(); ++i) {
    const TrackInfo& t = model_->layout().tracks[i];
    if (t.kind == TrackKind::kCpuSamples && t.utid == utid) track = i;
  }
  if (track < 0) return;
  model_->setExpanded(model_->layout().tracks[track].group, true);
  model_->setHidden(track, false);
  scrollTrackIntoView(track);
}

void TimelineView::revealProcess(qint64 upid) {
  const TrackLayout& L = model_->layout();
  for (int g = 0; g < L.groups.size(); ++g) {
    if (L.groups[g].upid != upid) continue;
    model_->setExpanded(g, true);
    if (!L.groups[g].tracks.isEmpty()) scrollTrackIntoView(L.groups[g].tracks.front());
    return;
  }
}

void TimelineView::revealTime(qint64 ts, qint64 dur) {
  centreOn(-1, ts, dur);
  if (dur > 0) setSelection(ts, ts + dur);
}

void TimelineView::setSearchMarks(QVector<qint64> ts) { canvas_->setSearchMarks(std::move(ts)); }

QWidget* TimelineView::takeDetailsPanel() {
  details_->setParent(nullptr);
  return details_;
}

void TimelineView::goToSlice(quint32 track_id, quint32 slice) {
  ++pending_;
  session_->query<QPair<qint64, qint64>>(
      [slice](Core& c) {
        const SliceTable& sl = c.storage().slice;
        if (slice >= sl.row_count()) return QPair<qint64, qint64>{-1, -1};
        return QPair<qint64, qint64>{sl.ts[slice], sl.dur[slice]};
      },
      this,
      [this, track_id, slice](QPair<qint64, qint64> span) {
        --pending_;
        if (span.first < 0) return;
        revealEvent(TrackKind::kSlices, track_id, slice, span.first, span.second);
      });
}

void TimelineView::keyPressEvent(QKeyEvent* e) {
  Wasd k = wasdFromScanCode(e->nativeScanCode());
  if (k == Wasd::kNone && e->nativeScanCode() == 0) {
    // No scan code (offscreen, synthetic events): fall back to the key.
    switch (e->key()) {
      case Qt::Key_W:
        k = Wasd::kW;
        break;
      case Qt::Key_A:
        k = Wasd::kA;
        break;
      case Qt::Key_S:
        k = Wasd::kS;
        break;
      case Qt::Key_D:
        k = Wasd::kD;
        break;
      default:
        break;
    }
  }
  const qint64 t0 = canvas_->rangeStart(), t1 = canvas_->rangeEnd(), len = t1 - t0;
  const bool fast = e->modifiers() & Qt::ShiftModifier;
  switch (k) {
    case Wasd::kW:
    case Wasd::kS: {
      double f = k == Wasd::kW ? (fast ? 0.5 : 0.8) : (fast ? 2.0 : 1.25);
      qint64 mid = t0 + len / 2;
      canvas_->setRange(mid - static_cast<qint64>(len * f / 2),
                        mid + static_cast<qint64>(len * f / 2));
      return;
    }
    case Wasd::kA:
    case Wasd::kD: {
      qint64 dt = static_cast<qint64>(len * (fast ? 0.5 : 0.15)) * (k == Wasd::kA ? -1 : 1);
      canvas_->setRange(t0 + dt, t1 + dt);
      return;
    }
    case Wasd::kNone:
      break;
  }
  if (e->key() == Qt::Key_F) return fitSelection();
  if (e->modifiers() & Qt::AltModifier) {
    if (e->key() == Qt::Key_Left) return goBack();
    if (e->key() == Qt::Key_Right) return goForward();
  }
  if (e->key() == Qt::Key_Escape) return selectArea(0, 0, {});
  QWidget::keyPressEvent(e);
}

}  // namespace fathom::gui
