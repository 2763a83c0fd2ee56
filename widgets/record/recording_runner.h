// Runs one record::RecordingSession (and the target probe before it) on a
// worker thread and reports on the UI thread. Stop and Cancel are safe to
// call at any time from the UI.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>
#include <mutex>

#include "record/recording_session.h"
#include "widgets/common/trace_session.h"

namespace fathom::gui {

// Problems worth acting on after a recording (record/troubleshooting.h), from the viewer's own
// load of the trace (call on the session's query lane): the trace is loaded once, not once
// for the hints and again to show it.
QStringList troubleshootRecordedTrace(Core& core, const record::SessionObservations& seen);

struct TargetChoice {
  bool local = false;
  QString serial;
};

class RecordingRunner : public QObject {
  Q_OBJECT
 public:
  explicit RecordingRunner(QObject* parent = nullptr);
  ~RecordingRunner() override;

  // Reads what the target is and can do; probed() follows.
  void probe(const TargetChoice& target);
  // Records; finished() follows. output_path is the final local file.
  void start(const TargetChoice& target, const perfetto::protos::TraceConfig& config,
             const record::SessionOptions& options);
  void stop() { stop_.Cancel(); }
  // SIGUSR1 to the heap collector of the running recording; status() says how it went.
  void dumpHeap();
  void cancel() { cancel_.Cancel(); }
  bool running() const { return running_; }
  // What the last finished recording saw, for troubleshootRecordedTrace().
  const record::SessionObservations& lastObservations() const { return last_observations_; }

 signals:
  void probed(bool ok, const QString& summary, const QString& strategy, const QString& command,
              const QString& error);
  void status(const QString& step);
  void progress(double elapsed_s, qint64 bytes);
  void pulled(quint64 bytes);
  // Why a recording failed, in words a user can act on (record/troubleshooting.h), before
  // finished(). A recording that produced a trace is explained by troubleshootRecordedTrace().
  void hints(const QStringList& texts);
  void finished(bool ok, const QString& path, const QString& error);

 private:
  record::CancelToken stop_, cancel_;
  bool running_ = false;
  record::SessionObservations last_observations_;
  // The running session, shared with the worker so "Dump heap now" can reach it.
  struct Running;
  std::shared_ptr<Running> current_;
  std::mutex mu_;
};

}  // namespace fathom::gui
