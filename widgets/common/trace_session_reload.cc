// TraceSession::reload: the same trace with appended packets replaces the
// loaded one. Kept apart from the first load: it swaps a live core while jobs
// may still be reading the old one.
#include "widgets/common/trace_session.h"

namespace fathom::gui {

struct TraceSession::Loaded {
  std::unique_ptr<TraceProcessor> tp;
  std::unique_ptr<TimelineIndex> index;
  QString error;
};

void TraceSession::reload(const QString& path) {
  if (!loaded_ || reloading_) return;
  reloading_ = true;
  cancel_ = false;
  query_lane_.start([this, path] {
    auto loaded = std::make_shared<Loaded>();
    loaded->tp = std::make_unique<TraceProcessor>();
    quint64 last_bytes = 0;
    ProgressCallback progress = [&](const LoadProgress& p) {
      if (p.bytes_read - last_bytes >= (1u << 20) || p.phase != LoadProgress::kReading) {
        last_bytes = p.bytes_read;
        emit reloadProgress(p.bytes_read, p.file_size);
      }
      return !cancel_.load(std::memory_order_relaxed);
    };
    Status st = loaded->tp->LoadFile(path.toStdString(), progress);
    if (st.ok())
      loaded->index = std::make_unique<TimelineIndex>(loaded->tp->storage());
    else
      loaded->error = cancel_.load() ? tr("Cancelled") : QString::fromStdString(st.message());
    QMetaObject::invokeMethod(
        this, [this, loaded, path] { finishReload(loaded, path); }, Qt::QueuedConnection);
  });
}

void TraceSession::finishReload(std::shared_ptr<Loaded> loaded, const QString& path) {
  reloading_ = false;
  if (!loaded->index) {
    emit reloaded(false, loaded->error);
    return;
  }
  // Jobs read core_ once when they start. The old core may still be in use by
  // a running view job or by query jobs queued before this point: free it on
  // the (serial) query lane after those, once the view lane has drained.
  auto old = std::make_shared<Loaded>();
  old->tp = std::move(tp_);
  old->index = std::move(index_);
  auto old_core = std::shared_ptr<Core>(std::move(core_owner_));
  tp_ = std::move(loaded->tp);
  index_ = std::move(loaded->index);
  core_owner_ = std::make_unique<Core>(Core{*tp_, *index_});
  core_.store(core_owner_.get(), std::memory_order_release);
  path_ = path;
  query_lane_.start([this, old, old_core]() mutable {
    view_lane_.waitForDone();
    old_core.reset();
    old->index.reset();
    old->tp.reset();
  });
  emit reloaded(true, QString());
}

}  // namespace fathom::gui
