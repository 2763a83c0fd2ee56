#include "widgets/common/trace_session.h"

#include <QElapsedTimer>
#include <QFileInfo>

#include "widgets/common/sql_package_settings.h"

namespace fathom::gui {

TraceSession::TraceSession(QObject* parent) : QObject(parent) {
  qRegisterMetaType<LoadOutcome>();
  query_lane_.setMaxThreadCount(1);
  view_lane_.setMaxThreadCount(1);
  // Keep the lanes' threads alive: jobs arrive in bursts while panning.
  query_lane_.setExpiryTimeout(-1);
  view_lane_.setExpiryTimeout(-1);
}

TraceSession::~TraceSession() {
  cancel();
  // Jobs reference the processor: drain both lanes before it goes away.
  core_.store(nullptr);
  query_lane_.waitForDone();
  view_lane_.waitForDone();
}

void TraceSession::open(const QString& path) {
  if (loading_ || loaded_) return;
  loading_ = true;
  path_ = path;
  cancel_ = false;
  tp_ = std::make_unique<TraceProcessor>();
  // Settings → SQL packages / standard library (no lane runs yet). A package
  // that cannot be added is left out; INCLUDE then says the module is missing.
  (void)applySqlPackageSettings(SqlPackageSettings::load(), &tp_->sql_packages());
  query_lane_.start([this, path] {
    LoadOutcome outcome;
    outcome.path = path;
    QElapsedTimer timer;
    timer.start();
    quint64 last_bytes = 0;
    int last_phase = -1;
    ProgressCallback progress = [&](const LoadProgress& p) {
      // Throttle: one signal per 4 MB or phase change keeps the queue short.
      if (p.phase != last_phase || p.bytes_read - last_bytes >= (4u << 20)) {
        last_bytes = p.bytes_read;
        last_phase = p.phase;
        emit loadProgress(p.bytes_read, p.file_size,
                          p.phase == LoadProgress::kReading ? p.packets : p.events,
                          static_cast<int>(p.phase));
      }
      return !cancel_.load(std::memory_order_relaxed);
    };
    Status st = tp_->LoadFile(path.toStdString(), progress);
    const LoadReport& report = tp_->report();
    outcome.format = QString::fromStdString(report.format);
    outcome.fileBytes = report.file_bytes;
    outcome.events = report.events;
    for (const std::string& w : report.warnings) outcome.warnings << QString::fromStdString(w);
    if (!st.ok()) {
      outcome.ok = false;
      outcome.cancelled = cancel_.load();
      outcome.error = QString::fromStdString(st.message());
    } else {
      emit loadProgress(report.file_bytes, report.file_bytes, report.events, 2);
      index_ = std::make_unique<TimelineIndex>(tp_->storage());
      outcome.ok = true;
    }
    outcome.seconds = timer.elapsed() / 1000.0;
    QMetaObject::invokeMethod(
        this, [this, outcome] { finishLoad(outcome); }, Qt::QueuedConnection);
  });
}

void TraceSession::finishLoad(LoadOutcome outcome) {
  loading_ = false;
  outcome_ = outcome;
  if (!outcome.ok) {
    emit loadFailed(outcome);
    return;
  }
  const TraceStorage& storage = tp_->storage();
  start_ = storage.min_ts();
  end_ = storage.has_bounds() ? storage.max_ts() : start_;
  core_owner_ = std::make_unique<Core>(Core{*tp_, *index_});
  core_.store(core_owner_.get(), std::memory_order_release);
  loaded_ = true;
  emit loaded();
}

void TraceSession::cancel() { cancel_ = true; }

void TraceSession::waitForIdle() {
  query_lane_.waitForDone();
  view_lane_.waitForDone();
}

}  // namespace fathom::gui
