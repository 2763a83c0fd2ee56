#include "widgets/record/recording_runner.h"

#include <QCoreApplication>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include "core/sql/result_printer.h"
#include "core/trace_processor.h"
#include "record/troubleshooting.h"

namespace fathom::gui {

QStringList troubleshootRecordedTrace(Core& core, const record::SessionObservations& seen) {
  const record::TraceFacts facts = record::GatherTraceFacts([&core](const std::string& sql) {
    auto it = core.tp.Query(sql);
    return RowsAsText(it.get());
  });
  QStringList texts;
  for (const auto& h : record::Troubleshoot(seen, facts))
    texts << QString::fromStdString(h.Format());
  return texts;
}

namespace {

Result<std::unique_ptr<record::TargetShell>> Open(const TargetChoice& t,
                                                  const record::CancelToken& cancel) {
  return t.local ? record::OpenLocalTarget()
                 : record::OpenAdbTarget(t.serial.toStdString(), cancel);
}

}  // namespace

// What the worker owns while recording: the target and the session on it.
struct RecordingRunner::Running {
  std::unique_ptr<record::TargetShell> shell;
  std::unique_ptr<record::RecordingSession> session;
};

RecordingRunner::RecordingRunner(QObject* parent) : QObject(parent) {}

void RecordingRunner::dumpHeap() {
  std::shared_ptr<Running> running;
  {
    std::lock_guard<std::mutex> lock(mu_);
    running = current_;
  }
  if (!running || !running->session) return;
  QPointer<RecordingRunner> self(this);
  (void)QtConcurrent::run([self, running] {
    Status st = running->session->DumpHeapNow();
    const QString text = st.ok()
                             ? tr("Heap dump requested")
                             : tr("Heap dump failed: %1").arg(QString::fromStdString(st.message()));
    QMetaObject::invokeMethod(qApp, [self, text] {
      if (self) emit self->status(text);
    });
  });
}

RecordingRunner::~RecordingRunner() {
  // A recording still running is told to stop; its thread finishes on its own.
  stop_.Cancel();
}

void RecordingRunner::probe(const TargetChoice& target) {
  QPointer<RecordingRunner> self(this);
  record::CancelToken cancel = cancel_;
  (void)QtConcurrent::run([self, target, cancel] {
    QString summary, strategy, command, error;
    bool ok = false;
    auto shell = Open(target, cancel);
    if (!shell.ok()) {
      error = QString::fromStdString(shell.status().message());
    } else if (auto info = record::ProbeTarget(**shell, cancel); !info.ok()) {
      error = QString::fromStdString(info.status().message());
    } else {
      ok = true;
      summary = QString::fromStdString(info->Summary());
      record::RecordingSession session(**shell, *info, {}, {});
      strategy = QString::fromStdString(record::StrategyDescription(record::ChooseStrategy(*info)));
      command = QString::fromStdString(session.DeviceCommand());
    }
    // Posted to the application, and the guard tested there: a QPointer is
    // only safe to test on the thread that deletes its object.
    QMetaObject::invokeMethod(qApp, [=] {
      if (self) emit self->probed(ok, summary, strategy, command, error);
    });
  });
}

void RecordingRunner::start(const TargetChoice& target, const perfetto::protos::TraceConfig& config,
                            const record::SessionOptions& options) {
  if (running_) return;
  running_ = true;
  stop_ = record::CancelToken();
  cancel_ = record::CancelToken();
  QPointer<RecordingRunner> self(this);
  auto post = [self](auto fn) {
    QMetaObject::invokeMethod(qApp, [self, fn] {
      if (self) fn(self.data());
    });
  };
  record::CancelToken stop = stop_, cancel = cancel_;
  (void)QtConcurrent::run([=] {
    auto finish = [&](bool ok, QString error) {
      const QString path = QString::fromStdString(options.output_path);
      post([=](RecordingRunner* r) {
        r->running_ = false;
        emit r->finished(ok, path, error);
      });
    };
    post([](RecordingRunner* r) { emit r->status(tr("Connecting…")); });
    auto shell = Open(target, cancel);
    if (!shell.ok()) return finish(false, QString::fromStdString(shell.status().message()));
    auto info = record::ProbeTarget(**shell, cancel);
    if (!info.ok()) return finish(false, QString::fromStdString(info.status().message()));
    auto running = std::make_shared<Running>();
    running->shell = std::move(*shell);
    running->session =
        std::make_unique<record::RecordingSession>(*running->shell, *info, config, options);
    record::RecordingSession& session = *running->session;
    post([running](RecordingRunner* r) {
      std::lock_guard<std::mutex> lock(r->mu_);
      r->current_ = running;
    });
    record::SessionEvents events;
    events.status = [&](const std::string& s) {
      const QString q = QString::fromStdString(s);
      post([q](RecordingRunner* r) { emit r->status(q); });
    };
    events.progress = [&](double elapsed, int64_t bytes) {
      post([=](RecordingRunner* r) { emit r->progress(elapsed, bytes); });
    };
    events.pulled = [&](uint64_t bytes) {
      post([=](RecordingRunner* r) { emit r->pulled(bytes); });
    };
    Status st = session.Run(events, stop, cancel);
    post([](RecordingRunner* r) {
      std::lock_guard<std::mutex> lock(r->mu_);
      r->current_.reset();
    });
    const record::SessionObservations seen = session.observations();
    post([seen](RecordingRunner* r) { r->last_observations_ = seen; });
    if (!st.ok()) {
      QStringList texts;
      for (const auto& h : record::TroubleshootError(seen, st.message()))
        texts << QString::fromStdString(h.Format());
      if (!texts.isEmpty()) post([texts](RecordingRunner* r) { emit r->hints(texts); });
    }
    finish(st.ok(), QString::fromStdString(st.message()));
  });
}

}  // namespace fathom::gui
