#include "app/gui/trace_workspace.h"

#include <QShortcut>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>

#include "app/gui/bottom_panel.h"
#include "widgets/common/resource_icon.h"
#include "widgets/common/trace_session.h"
#include "widgets/flamegraph/flamegraph_panel.h"
#include "widgets/heap/heap_explorer_panel.h"
#include "widgets/logs/log_panel.h"
#include "widgets/query/query_page.h"
#include "widgets/query/query_results_panel.h"
#include "widgets/search/search_box.h"
#include "widgets/search/search_link.h"
#include "widgets/timeline/timeline_view.h"

namespace fathom::gui {
namespace {

// Rows the flamegraph and logs tabs would show: profile samples, heap data, logs. A trace
// without any opens with the bottom panel folded so the timeline has the window.
qint64 countRows(Core& c, const char* table) {
  auto it = c.tp.Query(std::string("select count(*) from ") + table);
  // A table this build lacks counts as empty rather than failing the check.
  return it->NextResultSet() && it->NextRow() ? it->Get(0).i : 0;
}

// (profile and heap rows, log rows)
QPair<qint64, qint64> panelContentRows(Core& c) {
  qint64 profile = 0;
  for (const char* table :
       {"perf_sample", "cpu_profile_stack_sample", "heap_profile_allocation", "heap_graph_object"})
    profile += countRows(c, table);
  return {profile, countRows(c, "android_logs")};
}

}  // namespace

TraceWorkspace::TraceWorkspace(TraceSession* session, QWidget* parent)
    : QWidget(parent), session_(session) {
  timeline_ = new TimelineView(session, this);
  flamegraph_ = new FlamegraphPanel(session, this);
  heap_ = new HeapExplorerPanel(session, this);
  logs_ = new LogPanel(session, this);
  query_ = new QueryPage(session, this);
  details_ = timeline_->takeDetailsPanel();

  panels_ = new BottomPanel;
  panels_->addTab(details_, resourceIcon("timeline"), tr("Details"));
  panels_->addTab(flamegraph_, resourceIcon("flamegraph"), tr("Flamegraph"));
  panels_->addTab(heap_, resourceIcon("flamegraph"), tr("Heap explorer"));
  panels_->addTab(logs_, resourceIcon("logs"), tr("Logs"));
  results_ = new QueryResultsPanel(session, this);
  panels_->addTab(results_, resourceIcon("query"), tr("Query results"));

  split_ = new QSplitter(Qt::Vertical);
  split_->addWidget(timeline_);
  split_->addWidget(panels_);
  split_->setChildrenCollapsible(false);
  panels_->attach(split_);
  // Folded until the load says there is something to show below (no flash of an empty panel).
  panels_->setCollapsed(true, false);

  pages_ = new QTabWidget;
  pages_->setDocumentMode(true);
  pages_->addTab(split_, resourceIcon("timeline"), tr("Timeline"));
  pages_->addTab(query_, resourceIcon("query"), tr("Query"));

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(pages_);

  buildSearch();
  wirePanels();
}

void TraceWorkspace::buildSearch() {
  search_ = new SearchBox(session_, timeline_);
  // The omnibox leads the timeline's toolbar: it is what people reach for first.
  QToolBar* bar = timeline_->toolBar();
  QAction* first = bar->actions().value(0);
  search_->setMinimumWidth(260);
  search_->setMaximumWidth(520);
  bar->insertWidget(first, search_);
  bar->insertSeparator(first);
  // The Details tab opens before the timeline scrolls to a match, so the match is placed in
  // the timeline's final height.
  connect(search_, &SearchBox::matchSelected, this, [this] { panels_->reveal(details_); });
  linkSearchToTimeline(search_, timeline_);
  // ':' SQL answers under the timeline, which stays in view; the Query page gets the text
  // too, for editing.
  connect(search_, &SearchBox::sqlEntered, this, [this](const QString& sql) {
    query_->setQuery(sql);
    results_->run(sql);
    panels_->reveal(results_);
  });
  // A result row that names a slice, a thread, a process or a time: shown on the timeline.
  connect(results_, &QueryResultsPanel::revealRequested, this, &TraceWorkspace::revealRow);
  connect(query_, &QueryPage::revealRequested, this, &TraceWorkspace::revealRow);
  connect(results_, &QueryResultsPanel::editRequested, this, [this](const QString& sql) {
    query_->setQuery(sql);
    setView(View::kQuery);
  });
  // Ctrl+F and '/' anywhere on the timeline page but the flamegraph tab, which has its own
  // Ctrl+F (a shortcut on both would be ambiguous and fire neither).
  for (QWidget* w : {static_cast<QWidget*>(timeline_), details_, static_cast<QWidget*>(logs_),
                     static_cast<QWidget*>(results_)}) {
    for (const QKeySequence& keys :
         {QKeySequence(QKeySequence::Find), QKeySequence(Qt::Key_Slash)}) {
      auto* sc = new QShortcut(keys, w);
      sc->setContext(Qt::WidgetWithChildrenShortcut);
      connect(sc, &QShortcut::activated, search_, &SearchBox::activate);
    }
  }
  auto* fold = new QShortcut(QKeySequence(QStringLiteral("Ctrl+J")), this);
  fold->setContext(Qt::WidgetWithChildrenShortcut);
  connect(fold, &QShortcut::activated, panels_, &BottomPanel::toggle);
}

void TraceWorkspace::revealRow(const RowTarget& t) {
  using K = RowTarget::Kind;
  setView(View::kTimeline);
  switch (t.kind) {
    case K::kSlice:
      // The track is read from the slice table: a row's track_id column may
      // come from another table in the query.
      session_->query<qint64>(
          [id = t.id](Core& c) -> qint64 {
            const SliceTable& sl = c.storage().slice;
            return id >= 0 && id < qint64(sl.row_count()) ? qint64(sl.track_id[uint32_t(id)]) : -1;
          },
          this,
          [this, id = t.id](qint64 track) {
            if (track >= 0) timeline_->goToSlice(quint32(track), quint32(id));
          });
      break;
    case K::kSched:
      timeline_->revealEvent(TrackKind::kCpuSched, quint32(t.cpu), quint32(t.id), t.ts, t.dur);
      break;
    case K::kThreadState:
      timeline_->revealEvent(TrackKind::kThreadState, quint32(t.utid), quint32(t.id), t.ts, t.dur);
      break;
    case K::kThread:
      timeline_->revealThread(quint32(t.utid));
      if (t.ts >= 0) timeline_->revealTime(t.ts, std::max<qint64>(t.dur, 0));
      break;
    case K::kProcess:
      timeline_->revealProcess(t.upid);
      if (t.ts >= 0) timeline_->revealTime(t.ts, std::max<qint64>(t.dur, 0));
      break;
    case K::kTime:
      timeline_->revealTime(t.ts, std::max<qint64>(t.dur, 0));
      break;
    case K::kNone:
      break;
  }
  emit rowRevealed();
}

void TraceWorkspace::wirePanels() {
  // Profile-only formats (pprof, collapsed stacks) have no timeline: open
  // them straight in the flamegraph, where the profile combo picks the
  // sample type.
  connect(session_, &TraceSession::loaded, this, [this] {
    const QString format = session_->outcome().format;
    if (format.startsWith(QLatin1String("pprof")) ||
        format.startsWith(QLatin1String("collapsed stacks")))
      setView(View::kFlamegraph);
    else if (format.startsWith(QLatin1String("hprof")))  // a heap dump: no timeline to speak of
      setView(View::kHeapExplorer);
    if (!format.startsWith(QLatin1String("pprof")) &&
        !format.startsWith(QLatin1String("collapsed stacks")))
      checkPanelContent();
    timeline_->setFocus();
  });
  connect(timeline_, &TimelineView::heapProfileActivated, this,
          [this](qint64 upid, qint64 ts, const QString& kind) {
            flamegraph_->showHeapProfile(upid, ts, kind);
            panels_->reveal(flamegraph_);
            flame_clicked_ = true;
          });
  connect(timeline_, &TimelineView::cpuSampleActivated, this, [this](qint64 utid, qint64 ts) {
    flamegraph_->showCpuSamples(ts, ts + 1, {}, {int(utid)});  // that sample's stack
  });
  connect(timeline_, &TimelineView::selectionChanged, this,
          [this](qint64 t0, qint64 t1, const QList<int>& cpus, const QList<int>& utids) {
            logs_->setTimeRange(t0, t1);
            // Thread tracks in the selection: those threads' samples; else the CPUs'.
            if (t1 > t0 && !utids.isEmpty())
              flamegraph_->showCpuSamples(t0, t1, {}, utids);
            else if (t1 > t0 && !cpus.isEmpty())
              flamegraph_->showCpuSamples(t0, t1, cpus);
          });
  // A click or a search match shows its details; an area selection its aggregates.
  connect(timeline_, &TimelineView::detailsReady, this, [this] {
    // A diamond's details follow its flamegraph: that tab stays in front.
    panels_->reveal(flame_clicked_ ? static_cast<QWidget*>(flamegraph_) : details_);
    flame_clicked_ = false;
    // Opening the panel shortens the timeline: keep the clicked event on screen.
    timeline_->keepHighlightInView();
  });
  // A selection with nothing to aggregate (only CPU-sample tracks) would show
  // an empty table: its samples' flamegraph is what it selected.
  connect(timeline_, &TimelineView::selectionStatsReady, this, [this] {
    const bool nothing_aggregated = timeline_->detailsModel()->rowCount() == 0;
    if (nothing_aggregated && flamegraph_->hasCpuSamples())
      panels_->reveal(flamegraph_);
    else
      panels_->reveal(details_);
  });
}

void TraceWorkspace::checkPanelContent() {
  session_->query<QPair<qint64, qint64>>(
      &panelContentRows, this, [this](QPair<qint64, qint64> rows) {
        panel_checked_ = true;
        // Something opened the panel already (a click, a View menu choice): leave it as is.
        if (panels_->isCollapsed() && rows.first + rows.second > 0 &&
            !BottomPanel::rememberedCollapsed()) {
          panels_->setCurrentWidget(rows.first > 0 ? static_cast<QWidget*>(flamegraph_) : logs_);
          panels_->setCollapsed(false, false);
        }
        emit panelCheckDone();
      });
}

void TraceWorkspace::setView(View view) {
  switch (view) {
    case View::kTimeline:
      pages_->setCurrentWidget(split_);
      break;
    case View::kFlamegraph:
      pages_->setCurrentWidget(split_);
      panels_->setCurrentWidget(flamegraph_);
      // Give the flamegraph most of the height; the timeline stays for context.
      panels_->expandTo(split_->height() * 3 / 4);
      break;
    case View::kHeapExplorer:
      pages_->setCurrentWidget(split_);
      panels_->setCurrentWidget(heap_);
      panels_->expandTo(split_->height() * 3 / 4);
      break;
    case View::kLogs:
      pages_->setCurrentWidget(split_);
      panels_->reveal(logs_);
      break;
    case View::kDetails:
      pages_->setCurrentWidget(split_);
      panels_->reveal(details_);
      break;
    case View::kQuery:
      pages_->setCurrentWidget(query_);
      break;
  }
}

}  // namespace fathom::gui
