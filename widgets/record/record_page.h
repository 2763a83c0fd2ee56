// The Record page: pick a target, pick a preset or tick sources, see the
// exact config and device command, press Record. The trace is pulled into the
// chosen folder before anything else, then traceRecorded() asks the window to
// open it.
#pragma once

#include <QWidget>

#include "record/recording_session.h"
#include "record/trace_config_builder.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QListView;
class QPlainTextEdit;
class QPushButton;
class QTimer;

namespace fathom::gui {

class RecordOptionsForm;
class RecordingRunner;
class TargetListModel;

class RecordPage : public QWidget {
  Q_OBJECT
 public:
  explicit RecordPage(QWidget* parent = nullptr);
  QPushButton* backButton() const { return back_; }

  // For tests and scripts: choose by serial ("" = this computer), preset, folder.
  bool selectTarget(const QString& serial_or_local);
  void applyPreset(const QString& name);
  void setOutputFolder(const QString& dir);
  void setDurationSeconds(int seconds);
  QString configText() const;
  QString deviceCommand() const;
  QString statusText() const;
  TargetListModel* targets() const { return targets_; }

  // What the last recording saw (for troubleshootRecordedTrace once its trace has loaded).
  const record::SessionObservations& lastObservations() const;
  // Shows the problems found in the recorded trace under the Record button.
  void showRecordingHints(const QStringList& texts);

 public slots:
  void startRecording();
  void stopRecording();
  void cancelRecording();

 protected:
  // The target list is polled (adb server, USB) only while the page is shown.
  void showEvent(QShowEvent* event) override;
  void hideEvent(QHideEvent* event) override;

 signals:
  void traceRecorded(const QString& path);
  // Back (the button or Esc): the window returns to what was shown before.
  void backRequested();
  void recordingFailed(const QString& error);
  void probeFinished();

 private:
  void onTargetChanged();
  void updateConfig();
  void setRecording(bool on);
  void saveConfig();
  void loadConfig();
  void addTcpTarget();

  TargetListModel* targets_;
  QListView* target_view_;
  QLabel* target_info_;
  QComboBox* presets_;
  RecordOptionsForm* form_;
  QPlainTextEdit* config_view_;
  QLabel* command_;
  QLineEdit* folder_;
  QPushButton* record_;
  QPushButton* back_;
  QPushButton* stop_;
  QPushButton* cancel_;
  QPushButton* dump_heap_;
  QLabel* status_;
  QLabel* problem_;
  RecordingRunner* runner_;
  QTimer* refresh_timer_;
  perfetto::protos::TraceConfig config_;
  bool config_ok_ = false;
  QString loaded_config_text_;  // a config file loaded by the user wins over the form
  QString hints_;               // troubleshooting for the recording that is finishing
};

}  // namespace fathom::gui
