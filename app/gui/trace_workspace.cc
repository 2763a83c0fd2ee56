#include "app/gui/trace_workspace.h"

#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include "widgets/common/trace_session.h"
#include "widgets/flamegraph/flamegraph_panel.h"
#include "widgets/logs/log_panel.h"
#include "widgets/query/query_page.h"
#include "widgets/timeline/timeline_view.h"

namespace fathom::gui {

TraceWorkspace::TraceWorkspace(TraceSession* session, QWidget* parent)
    : QWidget(parent), session_(session) {
  timeline_ = new TimelineView(session, this);
  flamegraph_ = new FlamegraphPanel(session, this);
  logs_ = new LogPanel(session, this);
  query_ = new QueryPage(session, this);

  panels_ = new QTabWidget;
  panels_->setDocumentMode(true);
  panels_->addTab(flamegraph_, QIcon(QStringLiteral(":/icons/flamegraph.svg")), tr("Flamegraph"));
  panels_->addTab(logs_, QIcon(QStringLiteral(":/icons/logs.svg")), tr("Logs"));

  split_ = new QSplitter(Qt::Vertical);
  split_->addWidget(timeline_);
  split_->addWidget(panels_);
  // The timeline is what people came for; the panels below get a third.
  split_->setStretchFactor(0, 2);
  split_->setStretchFactor(1, 1);
  split_->setChildrenCollapsible(false);

  pages_ = new QTabWidget;
  pages_->setDocumentMode(true);
  pages_->addTab(split_, QIcon(QStringLiteral(":/icons/timeline.svg")), tr("Timeline"));
  pages_->addTab(query_, QIcon(QStringLiteral(":/icons/query.svg")), tr("Query"));

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(pages_);

  // Profile-only formats (pprof, collapsed stacks) have no timeline: open
  // them straight in the flamegraph, where the profile combo picks the
  // sample type.
  connect(session_, &TraceSession::loaded, this, [this] {
    const QString format = session_->outcome().format;
    if (format.startsWith(QLatin1String("pprof")) ||
        format.startsWith(QLatin1String("collapsed stacks")))
      setView(View::kFlamegraph);
  });
  connect(timeline_, &TimelineView::heapProfileActivated, this,
          [this](qint64 upid, qint64 ts, const QString& kind) {
            flamegraph_->showHeapProfile(upid, ts, kind);
            panels_->setCurrentWidget(flamegraph_);
          });
  connect(timeline_, &TimelineView::selectionChanged, this,
          [this](qint64 t0, qint64 t1, const QList<int>& cpus) {
            logs_->setTimeRange(t0, t1);
            if (t1 > t0 && !cpus.isEmpty()) flamegraph_->showCpuSamples(t0, t1, cpus);
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
      split_->setSizes({split_->height() / 4, split_->height() * 3 / 4});
      break;
    case View::kLogs:
      pages_->setCurrentWidget(split_);
      panels_->setCurrentWidget(logs_);
      break;
    case View::kQuery:
      pages_->setCurrentWidget(query_);
      break;
  }
}

}  // namespace fathom::gui
