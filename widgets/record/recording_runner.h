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

namespace fathom::gui {

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

 signals:
  void probed(bool ok, const QString& summary, const QString& strategy, const QString& command,
              const QString& error);
  void status(const QString& step);
  void progress(double elapsed_s, qint64 bytes);
  void pulled(quint64 bytes);
  // Problems worth acting on (record/troubleshooting.h), before finished().
  void hints(const QStringList& texts);
  void finished(bool ok, const QString& path, const QString& error);

 private:
  record::CancelToken stop_, cancel_;
  bool running_ = false;
  // The running session, shared with the worker so "Dump heap now" can reach it.
  struct Running;
  std::shared_ptr<Running> current_;
  std::mutex mu_;
};

}  // namespace fathom::gui
