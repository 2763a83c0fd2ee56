#include "widgets/record/record_page.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QShortcut>
#include <QStandardPaths>
#include <QTimer>
#include <QVBoxLayout>

#include "widgets/common/format.h"
#include "widgets/common/resource_icon.h"
#include "widgets/record/record_options_form.h"
#include "widgets/record/recording_runner.h"
#include "widgets/record/target_list_model.h"

namespace fathom::gui {
namespace {

QString DefaultFolder() {
  const QString saved = QSettings().value(QStringLiteral("record/folder")).toString();
  if (!saved.isEmpty()) return saved;
  return QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation) +
         QStringLiteral("/Fathom traces");
}

}  // namespace

RecordPage::RecordPage(QWidget* parent) : QWidget(parent) {
  targets_ = new TargetListModel(this);
  runner_ = new RecordingRunner(this);

  // Left: targets.
  target_view_ = new QListView;
  target_view_->setObjectName(QStringLiteral("targets"));
  target_view_->setModel(targets_);
  setFocusProxy(target_view_);  // focusing the page starts at the target list
  target_info_ = new QLabel(tr("Choose where to record."));
  target_info_->setWordWrap(true);
  target_info_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* add_tcp = new QPushButton(tr("Add TCP device…"));
  auto* refresh = new QPushButton(resourceIcon("refresh"), tr("Refresh"));
  connect(add_tcp, &QPushButton::clicked, this, &RecordPage::addTcpTarget);
  connect(refresh, &QPushButton::clicked, targets_, &TargetListModel::refresh);
  auto* targets_box = new QGroupBox(tr("Target"));
  auto* tl = new QVBoxLayout(targets_box);
  tl->addWidget(target_view_, 1);
  auto* tb = new QHBoxLayout;
  tb->addWidget(add_tcp);
  tb->addWidget(refresh);
  tl->addLayout(tb);
  tl->addWidget(target_info_);
  connect(target_view_->selectionModel(), &QItemSelectionModel::currentChanged, this,
          &RecordPage::onTargetChanged);
  connect(targets_, &TargetListModel::refreshed, this, [this] {
    if (!target_view_->currentIndex().isValid() && targets_->rowCount() > 0)
      target_view_->setCurrentIndex(targets_->index(0));
  });

  // Middle: presets and sources.
  presets_ = new QComboBox;
  presets_->addItem(tr("Custom"), QString());
  for (const record::Preset& p : record::Presets())
    presets_->addItem(QString::fromStdString(p.title), QString::fromStdString(p.name));
  form_ = new RecordOptionsForm;
  // The sources column never scrolls sideways (issue 29: it did at 1024 px): a row too long
  // for the column puts its field under its label, and the column is never narrower than
  // the narrowest the form can be, so nothing is clipped either.
  for (QFormLayout* f : form_->findChildren<QFormLayout*>())
    f->setRowWrapPolicy(QFormLayout::WrapLongRows);
  auto* scroll = new QScrollArea;
  scroll->setObjectName(QStringLiteral("sourcesScroll"));
  scroll->setWidget(form_);
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setMinimumWidth(form_->minimumSizeHint().width() +
                          scroll->verticalScrollBar()->sizeHint().width() +
                          2 * scroll->frameWidth());
  auto* sources = new QGroupBox(tr("What to record"));
  auto* sl = new QVBoxLayout(sources);
  auto* pl = new QFormLayout;
  pl->addRow(tr("Preset"), presets_);
  sl->addLayout(pl);
  sl->addWidget(scroll, 1);
  connect(presets_, &QComboBox::currentIndexChanged, this, [this] {
    const QString name = presets_->currentData().toString();
    if (!name.isEmpty()) applyPreset(name);
  });
  connect(form_, &RecordOptionsForm::changed, this, [this] {
    loaded_config_text_.clear();
    updateConfig();
  });

  // Right: config, command, output, controls.
  config_view_ = new QPlainTextEdit;
  config_view_->setReadOnly(true);
  config_view_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  command_ = new QLabel;
  command_->setWordWrap(true);
  command_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  command_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  auto* copy_config = new QPushButton(resourceIcon("copy"), tr("Copy config"));
  auto* copy_command = new QPushButton(tr("Copy command"));
  auto* save = new QPushButton(tr("Save config…"));
  auto* load = new QPushButton(tr("Load config…"));
  connect(copy_config, &QPushButton::clicked, this,
          [this] { QApplication::clipboard()->setText(config_view_->toPlainText()); });
  connect(copy_command, &QPushButton::clicked, this,
          [this] { QApplication::clipboard()->setText(command_->text()); });
  connect(save, &QPushButton::clicked, this, &RecordPage::saveConfig);
  connect(load, &QPushButton::clicked, this, &RecordPage::loadConfig);

  folder_ = new QLineEdit(DefaultFolder());
  auto* browse = new QPushButton(tr("…"));
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString dir =
        QFileDialog::getExistingDirectory(this, tr("Save traces in"), folder_->text());
    if (!dir.isEmpty()) setOutputFolder(dir);
  });

  record_ = new QPushButton(resourceIcon("record"), tr("Record"));
  record_->setObjectName(QStringLiteral("recordButton"));
  record_->setDefault(true);
  record_->setMinimumHeight(34);
  stop_ = new QPushButton(resourceIcon("stop"), tr("Stop"));
  stop_->setToolTip(tr("End the recording now and open what was recorded"));
  cancel_ = new QPushButton(tr("Cancel"));
  cancel_->setToolTip(tr("Abandon the recording"));
  dump_heap_ = new QPushButton(resourceIcon("diamond"), tr("Dump heap now"));
  dump_heap_->setToolTip(tr("Ask the heap profiler for a dump now (SIGUSR1)"));
  connect(record_, &QPushButton::clicked, this, &RecordPage::startRecording);
  connect(stop_, &QPushButton::clicked, this, &RecordPage::stopRecording);
  connect(cancel_, &QPushButton::clicked, this, &RecordPage::cancelRecording);
  connect(dump_heap_, &QPushButton::clicked, runner_, &RecordingRunner::dumpHeap);
  status_ = new QLabel;
  status_->setObjectName(QStringLiteral("recordStatus"));
  problem_ = new QLabel;
  problem_->setWordWrap(true);
  problem_->setStyleSheet(QStringLiteral("color: #d9534f"));
  problem_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* right = new QGroupBox(tr("Config and command"));
  auto* rl = new QVBoxLayout(right);
  rl->addWidget(config_view_, 1);
  // Two by two: four buttons in a row made this column (and the page) wider than 1024 px.
  auto* cb = new QGridLayout;
  cb->addWidget(copy_config, 0, 0);
  cb->addWidget(copy_command, 0, 1);
  cb->addWidget(save, 1, 0);
  cb->addWidget(load, 1, 1);
  rl->addLayout(cb);
  rl->addWidget(new QLabel(tr("Runs on the target:")));
  rl->addWidget(command_);
  auto* fl = new QHBoxLayout;
  fl->addWidget(new QLabel(tr("Save traces in")));
  fl->addWidget(folder_, 1);
  fl->addWidget(browse);
  rl->addLayout(fl);
  auto* buttons = new QGridLayout;
  buttons->addWidget(record_, 0, 0, 1, 2);
  buttons->addWidget(stop_, 1, 0);
  buttons->addWidget(cancel_, 1, 1);
  buttons->addWidget(dump_heap_, 2, 0, 1, 2);
  rl->addLayout(buttons);
  rl->addWidget(status_);
  rl->addWidget(problem_);

  // The page is a place to visit, not a trap: a visible way back (and Esc)
  // to the trace or the welcome page; a running recording carries on.
  back_ = new QPushButton(resourceIcon("back"), tr("Back"));
  back_->setObjectName(QStringLiteral("recordBack"));
  back_->setToolTip(tr("Back to the open trace (Esc); a recording in progress continues"));
  connect(back_, &QPushButton::clicked, this, &RecordPage::backRequested);
  auto* esc = new QShortcut(QKeySequence(Qt::Key_Escape), this);
  esc->setContext(Qt::WidgetWithChildrenShortcut);
  connect(esc, &QShortcut::activated, this, &RecordPage::backRequested);
  auto* top = new QHBoxLayout;
  top->addWidget(back_);
  auto* title = new QLabel(tr("<b>Record a trace</b>"));
  top->addWidget(title);
  top->addStretch(1);
  auto* columns = new QHBoxLayout;
  columns->addWidget(targets_box, 2);
  columns->addWidget(sources, 3);
  columns->addWidget(right, 3);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addLayout(columns, 1);

  connect(runner_, &RecordingRunner::probed, this,
          [this](bool ok, const QString& summary, const QString& strategy, const QString& command,
                 const QString& error) {
            if (ok) {
              target_info_->setText(QStringLiteral("<b>%1</b><br>%2").arg(summary, strategy));
              command_->setText(command);
            } else {
              target_info_->setText(tr("<b>Cannot use this target:</b> %1").arg(error));
            }
            emit probeFinished();
          });
  connect(runner_, &RecordingRunner::status, status_, &QLabel::setText);
  connect(runner_, &RecordingRunner::progress, this, [this](double elapsed, qint64 bytes) {
    status_->setText(
        tr("Recording… %1%2")
            .arg(formatDuration(qint64(elapsed * 1e9)))
            .arg(bytes >= 0 ? tr(", %1 written").arg(formatBytes(double(bytes))) : QString()));
  });
  connect(runner_, &RecordingRunner::pulled, this, [this](quint64 bytes) {
    status_->setText(tr("Pulling the trace… %1").arg(formatBytes(double(bytes))));
  });
  connect(runner_, &RecordingRunner::hints, this,
          [this](const QStringList& texts) { hints_ = texts.join(QStringLiteral("\n\n")); });
  connect(runner_, &RecordingRunner::finished, this,
          [this](bool ok, const QString& path, const QString& error) {
            setRecording(false);
            if (ok) {
              status_->setText(tr("Saved %1").arg(QDir::toNativeSeparators(path)));
              problem_->clear();  // the window explains the trace once it has loaded it
              emit traceRecorded(path);
            } else {
              status_->setText(tr("Recording failed"));
              problem_->setText(hints_.isEmpty() ? error : error + QStringLiteral("\n\n") + hints_);
              emit recordingFailed(error);
            }
            hints_.clear();
          });

  refresh_timer_ = new QTimer(this);
  refresh_timer_->setInterval(3000);  // hotplug: cheap list, no handshake
  connect(refresh_timer_, &QTimer::timeout, targets_, &TargetListModel::refresh);
  setRecording(false);
  applyPreset(QStringLiteral("memory"));
}

void RecordPage::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  targets_->refresh();
  refresh_timer_->start();
}

void RecordPage::hideEvent(QHideEvent* event) {
  refresh_timer_->stop();
  QWidget::hideEvent(event);
}

bool RecordPage::selectTarget(const QString& serial) {
  for (int row = 0; row < targets_->rowCount(); ++row) {
    const record::TargetEntry* e = targets_->entry(row);
    const bool match = serial.isEmpty() ? e->kind == record::TargetEntry::kLocal
                                        : QString::fromStdString(e->serial) == serial;
    if (match) {
      target_view_->setCurrentIndex(targets_->index(row));
      return true;
    }
  }
  return false;
}

void RecordPage::applyPreset(const QString& name) {
  record::RecordOptions options = form_->options();
  if (!record::ApplyPreset(name.toStdString(), &options).ok()) return;
  form_->setOptions(options);
  const int index = presets_->findData(name);
  const QSignalBlocker block(presets_);
  presets_->setCurrentIndex(index < 0 ? 0 : index);
  loaded_config_text_.clear();
  updateConfig();
}

void RecordPage::setOutputFolder(const QString& dir) {
  folder_->setText(dir);
  QSettings().setValue(QStringLiteral("record/folder"), dir);
}

void RecordPage::setDurationSeconds(int seconds) {
  record::RecordOptions o = form_->options();
  o.duration_ms = uint32_t(seconds) * 1000;
  form_->setOptions(o);
  updateConfig();
}

QString RecordPage::configText() const { return config_view_->toPlainText(); }
QString RecordPage::deviceCommand() const { return command_->text(); }
QString RecordPage::statusText() const { return status_->text(); }

void RecordPage::updateConfig() {
  problem_->clear();
  if (!loaded_config_text_.isEmpty()) {
    config_view_->setPlainText(loaded_config_text_);
    return;
  }
  auto built = record::BuildTraceConfig(form_->options());
  config_ok_ = built.ok();
  if (!built.ok()) {
    config_view_->setPlainText(QString());
    problem_->setText(QString::fromStdString(built.status().message()));
    record_->setEnabled(false);
    return;
  }
  config_ = *built;
  config_view_->setPlainText(QString::fromStdString(record::ConfigToText(config_)));
  record_->setEnabled(!runner_->running());
}

void RecordPage::onTargetChanged() {
  const record::TargetEntry* e = targets_->entry(target_view_->currentIndex().row());
  if (!e) return;
  if (!e->problem.empty()) {
    target_info_->setText(
        tr("<b>%1</b><br>%2")
            .arg(QString::fromStdString(e->label), QString::fromStdString(e->problem)));
    return;
  }
  target_info_->setText(tr("Reading what %1 can do…").arg(QString::fromStdString(e->label)));
  runner_->probe({e->kind == record::TargetEntry::kLocal, QString::fromStdString(e->serial)});
}

void RecordPage::setRecording(bool on) {
  record_->setEnabled(!on && config_ok_);
  stop_->setEnabled(on);
  cancel_->setEnabled(on);
  bool heap = false;
  for (const auto& ds : config_.data_sources())
    heap = heap || ds.config().name() == "android.heapprofd";
  dump_heap_->setEnabled(on && heap);
  target_view_->setEnabled(!on);
  form_->setEnabled(!on);
  presets_->setEnabled(!on);
}

void RecordPage::startRecording() {
  const record::TargetEntry* e = targets_->entry(target_view_->currentIndex().row());
  if (!e) {
    problem_->setText(tr("Choose a target first."));
    return;
  }
  if (!config_ok_) return;
  QDir dir(folder_->text());
  if (!dir.mkpath(QStringLiteral("."))) {
    problem_->setText(tr("Cannot create the folder %1").arg(folder_->text()));
    return;
  }
  QSettings().setValue(QStringLiteral("record/folder"), folder_->text());
  const QString name =
      QStringLiteral("fathom-%1.pftrace")
          .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
  record::SessionOptions options;
  options.output_path = dir.filePath(name).toStdString();
  options.device_programs_dir =
      record::FindDeviceProgramsDir(QCoreApplication::applicationFilePath().toStdString());
  if (presets_->currentData().toString() == QLatin1String("java-alloc")) {
    // The Java processes field names the command to run with the agent.
    const auto procs = form_->options().java_processes;
    std::string command;
    for (const auto& p : procs) command += (command.empty() ? "" : " ") + p;
    if (command.empty()) {
      problem_->setText(
          tr("Java allocations: enter the command to run (e.g. java -jar app.jar) "
             "in the Java processes field, or on Android the debuggable app's package "
             "(com.example.app or com.example.app/.MainActivity)"));
      return;
    }
    options.java_alloc_command = command;
  }
  problem_->clear();
  setRecording(true);
  runner_->start({e->kind == record::TargetEntry::kLocal, QString::fromStdString(e->serial)},
                 config_, options);
}

void RecordPage::stopRecording() {
  status_->setText(tr("Stopping…"));
  runner_->stop();
}

void RecordPage::cancelRecording() {
  status_->setText(tr("Cancelling…"));
  runner_->cancel();
}

void RecordPage::saveConfig() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Save config"), folder_->text(),
                                                    tr("Trace configs (*.pbtxt *.txt)"));
  if (path.isEmpty()) return;
  QFile f(path);
  if (f.open(QIODevice::WriteOnly | QIODevice::Truncate)) f.write(configText().toUtf8());
}

void RecordPage::loadConfig() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Load config"), folder_->text(),
                                                    tr("Trace configs (*.pbtxt *.txt *.pb)"));
  if (path.isEmpty()) return;
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return;
  const QByteArray bytes = f.readAll();
  const bool text = !path.endsWith(QLatin1String(".pb"));
  auto parsed = record::ParseConfig(bytes.toStdString(), text, path.toStdString());
  if (!parsed.ok()) {
    problem_->setText(QString::fromStdString(parsed.status().message()));
    return;
  }
  config_ = *parsed;
  config_ok_ = true;
  loaded_config_text_ = QString::fromStdString(record::ConfigToText(config_));
  config_view_->setPlainText(loaded_config_text_);
  presets_->setCurrentIndex(0);
  record_->setEnabled(true);
}

void RecordPage::addTcpTarget() {
  bool ok = false;
  const QString hp =
      QInputDialog::getText(this, tr("Add TCP device"), tr("Host and port (adb tcpip, emulator):"),
                            QLineEdit::Normal, QStringLiteral("192.168.1.20:5555"), &ok);
  if (ok && !hp.trimmed().isEmpty()) targets_->addTcpTarget(hp.trimmed());
}

const record::SessionObservations& RecordPage::lastObservations() const {
  return runner_->lastObservations();
}

void RecordPage::showRecordingHints(const QStringList& texts) {
  problem_->setText(texts.join(QStringLiteral("\n\n")));
}

}  // namespace fathom::gui
