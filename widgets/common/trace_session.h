// The loaded trace as the GUI sees it. The core is never touched on the UI
// thread: loading, SQL, flamegraph building and timeline lookups run on worker
// threads and hand their results back to the UI thread through queued calls.
//
// Two serial lanes:
//  - the query lane (load, SQL, flamegraphs, exports): long work in order;
//  - the view lane (timeline lookups through TimelineIndex): short reads that
//    must not wait behind a slow user query.
// After a load has finished the storage is immutable, so both lanes read it
// at the same time; only the query lane owns the SQLite connection.
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QThreadPool>
#include <atomic>
#include <functional>
#include <memory>

#include "core/storage/timeline_index.h"
#include "core/trace_processor.h"

namespace fathom::gui {

// What a finished (or failed) load produced, for the status bar and the
// "what happened" panel.
struct LoadOutcome {
  bool ok = false;
  bool cancelled = false;
  QString path;
  QString error;         // the core's message (names the file and offset)
  QStringList warnings;  // what was dropped; the trace still opened
  QString format;
  quint64 fileBytes = 0;
  quint64 events = 0;
  double seconds = 0;
};

// Handed to jobs. Valid only inside the job.
struct Core {
  TraceProcessor& tp;
  const TimelineIndex& index;
  const TraceStorage& storage() const { return tp.storage(); }
};

class TraceSession : public QObject {
  Q_OBJECT
 public:
  explicit TraceSession(QObject* parent = nullptr);
  ~TraceSession() override;

  // Starts loading `path` (any format the core reads) on the query lane.
  // Progress, then loaded() or loadFailed(), arrive on the UI thread.
  // A session loads one trace; open a new session for the next file.
  void open(const QString& path);
  // Asks a running load to stop; loadFailed() follows with cancelled = true.
  void cancel();
  // Loads `path` (the loaded trace with packets appended: symbols, mappings)
  // into a new processor on the query lane and swaps it in, so every panel
  // can re-query in place; reloaded() follows. The old processor answers until
  // the swap and is freed once no job can hold it. cancel() keeps the old one.
  void reload(const QString& path);
  bool isReloading() const { return reloading_; }

  bool isLoaded() const { return loaded_; }
  bool isLoading() const { return loading_; }
  QString path() const { return path_; }
  const LoadOutcome& outcome() const { return outcome_; }
  // Trace bounds in trace-clock nanoseconds (valid after loaded()).
  qint64 traceStart() const { return start_; }
  qint64 traceEnd() const { return end_; }

  // Runs `work` on the query lane, then `done(result)` on the session's (GUI)
  // thread; `context` must live there.
  // `done` is dropped when `context` is destroyed first or no trace is loaded.
  template <typename R>
  void query(std::function<R(Core&)> work, QObject* context, std::function<void(R)> done) {
    post(&query_lane_, std::move(work), context, std::move(done));
  }
  // The same on the view lane: short read-only lookups for painting.
  template <typename R>
  void view(std::function<R(Core&)> work, QObject* context, std::function<void(R)> done) {
    post(&view_lane_, std::move(work), context, std::move(done));
  }

  // Blocks until both lanes are idle (tests, --screenshot). Not for UI code.
  void waitForIdle();

 signals:
  // phase: 0 reading, 1 sorting/parsing, 2 building indexes.
  void loadProgress(quint64 bytesRead, quint64 fileSize, quint64 events, int phase);
  void loaded();
  void loadFailed(const fathom::gui::LoadOutcome& outcome);
  void reloadProgress(quint64 bytesRead, quint64 fileSize);
  // ok: the new trace is in use; else `error` says why and the old one stays.
  void reloaded(bool ok, const QString& error);

 private:
  template <typename R>
  void post(QThreadPool* lane, std::function<R(Core&)> work, QObject* context,
            std::function<void(R)> done) {
    // The result is posted to the session, never to `context`: `context` may be
    // destroyed on the GUI thread while the work runs, and a QPointer is only
    // safe to test on the thread that deletes its object. The session outlives
    // both lanes (its destructor waits for them), and the guard is tested when
    // the result arrives, on the GUI thread.
    Q_ASSERT(!context || context->thread() == thread());
    QPointer<QObject> guard(context);
    lane->start([this, work = std::move(work), guard, done = std::move(done)]() mutable {
      Core* core = core_.load(std::memory_order_acquire);
      if (!core) return;
      R result = work(*core);
      QMetaObject::invokeMethod(
          this,
          [guard, done = std::move(done), result = std::move(result)]() mutable {
            if (guard) done(std::move(result));
          },
          Qt::QueuedConnection);
    });
  }
  void finishLoad(LoadOutcome outcome);
  struct Loaded;
  void finishReload(std::shared_ptr<Loaded> loaded, const QString& path);

  QThreadPool query_lane_;
  QThreadPool view_lane_;
  std::unique_ptr<TraceProcessor> tp_;
  std::unique_ptr<TimelineIndex> index_;
  std::unique_ptr<Core> core_owner_;
  std::atomic<Core*> core_{nullptr};  // published once the load succeeded
  std::atomic<bool> cancel_{false};
  bool loaded_ = false;
  bool loading_ = false;
  bool reloading_ = false;
  QString path_;
  LoadOutcome outcome_;
  qint64 start_ = 0, end_ = 0;
};

}  // namespace fathom::gui

Q_DECLARE_METATYPE(fathom::gui::LoadOutcome)
