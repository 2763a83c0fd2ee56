#include "widgets/record/record_options_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

namespace fathom::gui {
namespace {

QStringList Split(const QString& s) {
  return s.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts);
}
std::vector<std::string> ToStd(const QString& s) {
  std::vector<std::string> out;
  for (const QString& part : Split(s)) out.push_back(part.toStdString());
  return out;
}
QString Join(const std::vector<std::string>& v) {
  QStringList l;
  for (const auto& s : v) l << QString::fromStdString(s);
  return l.join(QStringLiteral(", "));
}

}  // namespace

QSpinBox* RecordOptionsForm::spin(int min, int max, int value, const QString& suffix) {
  auto* s = new QSpinBox;
  s->setRange(min, max);
  s->setValue(value);
  s->setSuffix(suffix);
  connect(s, &QSpinBox::valueChanged, this, &RecordOptionsForm::changed);
  return s;
}

QGroupBox* RecordOptionsForm::group(const QString& title) {
  auto* g = new QGroupBox(title);
  g->setCheckable(true);
  g->setChecked(false);
  connect(g, &QGroupBox::toggled, this, &RecordOptionsForm::changed);
  return g;
}

// linux.perf: what a hotspot user records. Works without tracefs, so without root for
// the user's own processes.
QGroupBox* RecordOptionsForm::makeCallstacksGroup() {
  callstacks_ = group(tr("CPU call stacks (linux.perf)"));
  auto* cf = new QFormLayout(callstacks_);
  callstack_hz_ = spin(1, 10000, 100, tr(" Hz"));
  callstack_hz_->setToolTip(tr("Samples per second on each CPU (cpu-clock)"));
  callstack_processes_ = new QLineEdit;
  callstack_processes_->setPlaceholderText(tr("every process, or names / pids"));
  connect(callstack_processes_, &QLineEdit::textChanged, this, &RecordOptionsForm::changed);
  callstack_kernel_ = new QCheckBox(tr("kernel frames too"));
  connect(callstack_kernel_, &QCheckBox::toggled, this, &RecordOptionsForm::changed);
  cf->addRow(tr("Frequency"), callstack_hz_);
  cf->addRow(tr("Processes"), callstack_processes_);
  cf->addRow(callstack_kernel_);
  return callstacks_;
}

// linux.inode_file_map: the warning sits inside the group, above its settings, so it is
// read before the source is turned on.
QGroupBox* RecordOptionsForm::makeInodeGroup() {
  inode_ = group(tr("Inode to file map (linux.inode_file_map)"));
  auto* f = new QFormLayout(inode_);
  auto* warning = new QLabel(QString::fromUtf8(record::InodeFileMapWarning()));
  warning->setWordWrap(true);
  warning->setObjectName(QStringLiteral("inodeWarning"));
  warning->setStyleSheet(QStringLiteral("color: #b35900;"));
  inode_mount_points_ = new QLineEdit;
  inode_mount_points_->setPlaceholderText(tr("/ (the root filesystem), or /data, /system"));
  connect(inode_mount_points_, &QLineEdit::textChanged, this, &RecordOptionsForm::changed);
  inode_batch_ = spin(1, 10000000, 15000, tr(" inodes"));
  inode_batch_->setToolTip(tr("Inodes mapped per batch (scan_batch_size)"));
  inode_interval_ms_ = spin(1, 3600000, 1000, tr(" ms"));
  inode_interval_ms_->setToolTip(tr("Pause between batches (scan_interval_ms)"));
  f->addRow(warning);
  f->addRow(tr("Mount points"), inode_mount_points_);
  f->addRow(tr("Batch"), inode_batch_);
  f->addRow(tr("Pause between batches"), inode_interval_ms_);
  return inode_;
}

RecordOptionsForm::RecordOptionsForm(QWidget* parent) : QWidget(parent) {
  auto edit = [this](const QString& placeholder) {
    auto* e = new QLineEdit;
    e->setPlaceholderText(placeholder);
    connect(e, &QLineEdit::textChanged, this, &RecordOptionsForm::changed);
    return e;
  };
  auto check = [this](const QString& text, bool on) {
    auto* c = new QCheckBox(text);
    c->setChecked(on);
    connect(c, &QCheckBox::toggled, this, &RecordOptionsForm::changed);
    return c;
  };

  auto* session = new QGroupBox(tr("Session"));
  auto* sf = new QFormLayout(session);
  duration_s_ = spin(1, 24 * 3600, 10, tr(" s"));
  until_stopped_ = check(tr("until stopped"), false);
  auto* dur = new QHBoxLayout;
  dur->addWidget(duration_s_);
  dur->addWidget(until_stopped_);
  sf->addRow(tr("Duration"), dur);
  buffer_mb_ = spin(1, 4096, 64, tr(" MiB"));
  sf->addRow(tr("Buffer"), buffer_mb_);
  mode_ = new QComboBox;
  mode_->addItems({tr("Write to file (long traces)"), tr("Ring buffer (keep the last)")});
  connect(mode_, &QComboBox::currentIndexChanged, this, &RecordOptionsForm::changed);
  sf->addRow(tr("Mode"), mode_);
  connect(until_stopped_, &QCheckBox::toggled, duration_s_, &QWidget::setDisabled);

  ftrace_ = group(tr("Kernel events (linux.ftrace)"));
  auto* ff = new QFormLayout(ftrace_);
  ftrace_events_ = edit(QStringLiteral("sched/sched_switch, power/*"));
  atrace_categories_ = edit(QStringLiteral("gfx, view, am, wm"));
  atrace_apps_ = edit(QStringLiteral("com.example.app or *"));
  compact_sched_ = check(tr("compact scheduling records (smaller traces)"), true);
  ff->addRow(tr("Events"), ftrace_events_);
  ff->addRow(tr("Atrace categories"), atrace_categories_);
  ff->addRow(tr("Atrace apps"), atrace_apps_);
  ff->addRow(compact_sched_);

  process_stats_ = group(tr("Processes (linux.process_stats)"));
  auto* pf = new QFormLayout(process_stats_);
  proc_poll_ms_ = spin(0, 60000, 1000, tr(" ms"));
  proc_poll_ms_->setSpecialValueText(tr("names only"));
  proc_poll_ms_->setToolTip(tr("Memory counters per process; at least 100 ms (0: names only)"));
  pf->addRow(tr("Poll memory every"), proc_poll_ms_);

  sys_stats_ = group(tr("System counters (linux.sys_stats)"));
  auto* yf = new QFormLayout(sys_stats_);
  meminfo_ms_ = spin(0, 60000, 1000, tr(" ms"));
  vmstat_ms_ = spin(0, 60000, 1000, tr(" ms"));
  stat_ms_ = spin(0, 60000, 1000, tr(" ms"));
  for (QSpinBox* s : {meminfo_ms_, vmstat_ms_, stat_ms_}) s->setSpecialValueText(tr("off"));
  yf->addRow(tr("/proc/meminfo every"), meminfo_ms_);
  yf->addRow(tr("/proc/vmstat every"), vmstat_ms_);
  yf->addRow(tr("/proc/stat every"), stat_ms_);

  heapprofd_ = group(tr("Native heap profile (android.heapprofd)"));
  auto* hf = new QFormLayout(heapprofd_);
  heap_processes_ = edit(tr("process names or pids"));
  heap_interval_ = spin(1, 64 * 1024 * 1024, 4096, tr(" B"));
  heap_dump_ms_ = spin(0, 3600000, 1000, tr(" ms"));
  heap_dump_ms_->setSpecialValueText(tr("at the end only"));
  heap_shmem_mb_ = spin(1, 512, 8, tr(" MiB"));
  heap_block_ = check(tr("block the app when the buffer is full (no lost samples)"), false);
  heap_all_ = check(tr("all heaps (custom allocators, ART)"), false);
  hf->addRow(tr("Processes"), heap_processes_);
  hf->addRow(tr("Sampling interval"), heap_interval_);
  hf->addRow(tr("Dump every"), heap_dump_ms_);
  hf->addRow(tr("Shared memory"), heap_shmem_mb_);
  hf->addRow(heap_block_);
  hf->addRow(heap_all_);

  java_hprof_ = group(tr("Java heap dump (android.java_hprof)"));
  auto* jf = new QFormLayout(java_hprof_);
  java_processes_ = edit(tr("process names"));
  jf->addRow(tr("Processes"), java_processes_);

  power_ = group(tr("Battery and power (android.power)"));
  auto* wf = new QFormLayout(power_);
  battery_ms_ = spin(100, 60000, 1000, tr(" ms"));
  rails_ = check(tr("power rails"), true);
  wf->addRow(tr("Battery every"), battery_ms_);
  wf->addRow(rails_);

  logcat_ = group(tr("Logcat (android.log)"));
  auto* lf = new QFormLayout(logcat_);
  log_buffers_ = edit(QStringLiteral("default, system, crash, events"));
  log_buffers_->setText(QStringLiteral("default, system, crash"));
  log_priority_ = new QComboBox;
  log_priority_->addItems({QStringLiteral("verbose"), QStringLiteral("debug"),
                           QStringLiteral("info"), QStringLiteral("warn"), QStringLiteral("error"),
                           QStringLiteral("fatal")});
  log_priority_->setCurrentText(QStringLiteral("info"));
  connect(log_priority_, &QComboBox::currentIndexChanged, this, &RecordOptionsForm::changed);
  log_tags_ = edit(tr("all tags"));
  lf->addRow(tr("Buffers"), log_buffers_);
  lf->addRow(tr("Minimum priority"), log_priority_);
  lf->addRow(tr("Tags"), log_tags_);

  auto* layout = new QVBoxLayout(this);
  QGroupBox* callstacks = makeCallstacksGroup();
  QGroupBox* inodes = makeInodeGroup();
  for (QWidget* w :
       std::initializer_list<QWidget*>{session, ftrace_, process_stats_, sys_stats_, callstacks,
                                       heapprofd_, java_hprof_, power_, logcat_, inodes})
    layout->addWidget(w);
  layout->addStretch();
}

record::RecordOptions RecordOptionsForm::options() const {
  record::RecordOptions o = base_;
  o.duration_ms = until_stopped_->isChecked() ? 0 : uint32_t(duration_s_->value()) * 1000;
  o.buffer_size_kb = uint32_t(buffer_mb_->value()) * 1024;
  o.ring_buffer = mode_->currentIndex() == 1;
  o.ftrace = ftrace_->isChecked();
  o.ftrace_events = ToStd(ftrace_events_->text());
  o.atrace_categories = ToStd(atrace_categories_->text());
  o.atrace_apps = ToStd(atrace_apps_->text());
  o.compact_sched = compact_sched_->isChecked();
  o.process_stats = process_stats_->isChecked();
  o.proc_stats_poll_ms = uint32_t(proc_poll_ms_->value());
  o.sys_stats = sys_stats_->isChecked();
  o.meminfo_period_ms = uint32_t(meminfo_ms_->value());
  o.vmstat_period_ms = uint32_t(vmstat_ms_->value());
  o.stat_period_ms = uint32_t(stat_ms_->value());
  o.cpu_callstacks = callstacks_->isChecked();
  o.callstack_frequency_hz = uint32_t(callstack_hz_->value());
  o.callstack_kernel_frames = callstack_kernel_->isChecked();
  o.callstack_pids.clear();
  o.callstack_processes.clear();
  for (const QString& p : Split(callstack_processes_->text())) {
    bool numeric = false;
    const qulonglong pid = p.toULongLong(&numeric);
    if (numeric)
      o.callstack_pids.push_back(pid);
    else
      o.callstack_processes.push_back(p.toStdString());
  }
  o.inode_file_map = inode_->isChecked();
  o.inode_mount_points = ToStd(inode_mount_points_->text());
  o.inode_scan_batch_size = uint32_t(inode_batch_->value());
  o.inode_scan_interval_ms = uint32_t(inode_interval_ms_->value());
  o.heapprofd = heapprofd_->isChecked();
  o.heap_pids.clear();
  o.heap_process_names.clear();
  for (const QString& p : Split(heap_processes_->text())) {
    bool numeric = false;
    const qulonglong pid = p.toULongLong(&numeric);
    if (numeric) {
      o.heap_pids.push_back(pid);
    } else {
      o.heap_process_names.push_back(p.toStdString());
    }
  }
  o.heap_sampling_interval = uint64_t(heap_interval_->value());
  o.heap_continuous_dump_ms = uint32_t(heap_dump_ms_->value());
  o.heap_shmem_size = uint64_t(heap_shmem_mb_->value()) << 20;
  o.heap_block_client = heap_block_->isChecked();
  o.heap_all_heaps = heap_all_->isChecked();
  o.java_hprof = java_hprof_->isChecked();
  o.java_processes = ToStd(java_processes_->text());
  o.power = power_->isChecked();
  o.battery_poll_ms = uint32_t(battery_ms_->value());
  o.power_rails = rails_->isChecked();
  o.logcat = logcat_->isChecked();
  o.log_buffers = ToStd(log_buffers_->text());
  o.log_min_priority = log_priority_->currentText().toStdString();
  o.log_tags = ToStd(log_tags_->text());
  return o;
}

void RecordOptionsForm::setOptions(const record::RecordOptions& o) {
  const QSignalBlocker block(this);
  base_ = o;
  until_stopped_->setChecked(o.duration_ms == 0);
  if (o.duration_ms) duration_s_->setValue(int(o.duration_ms / 1000));
  buffer_mb_->setValue(int(o.buffer_size_kb / 1024));
  mode_->setCurrentIndex(o.ring_buffer ? 1 : 0);
  ftrace_->setChecked(o.ftrace);
  ftrace_events_->setText(Join(o.ftrace_events));
  atrace_categories_->setText(Join(o.atrace_categories));
  atrace_apps_->setText(Join(o.atrace_apps));
  compact_sched_->setChecked(o.compact_sched);
  process_stats_->setChecked(o.process_stats);
  proc_poll_ms_->setValue(int(o.proc_stats_poll_ms));
  sys_stats_->setChecked(o.sys_stats);
  meminfo_ms_->setValue(int(o.meminfo_period_ms));
  vmstat_ms_->setValue(int(o.vmstat_period_ms));
  stat_ms_->setValue(int(o.stat_period_ms));
  callstacks_->setChecked(o.cpu_callstacks);
  callstack_hz_->setValue(int(o.callstack_frequency_hz));
  callstack_kernel_->setChecked(o.callstack_kernel_frames);
  QStringList targets;
  for (const auto& n : o.callstack_processes) targets << QString::fromStdString(n);
  for (uint64_t pid : o.callstack_pids) targets << QString::number(pid);
  callstack_processes_->setText(targets.join(QStringLiteral(", ")));
  inode_->setChecked(o.inode_file_map);
  inode_mount_points_->setText(Join(o.inode_mount_points));
  inode_batch_->setValue(int(o.inode_scan_batch_size));
  inode_interval_ms_->setValue(int(o.inode_scan_interval_ms));
  heapprofd_->setChecked(o.heapprofd);
  QStringList procs;
  for (const auto& n : o.heap_process_names) procs << QString::fromStdString(n);
  for (uint64_t pid : o.heap_pids) procs << QString::number(pid);
  heap_processes_->setText(procs.join(QStringLiteral(", ")));
  heap_interval_->setValue(int(o.heap_sampling_interval));
  heap_dump_ms_->setValue(int(o.heap_continuous_dump_ms));
  heap_shmem_mb_->setValue(int(o.heap_shmem_size >> 20));
  heap_block_->setChecked(o.heap_block_client);
  heap_all_->setChecked(o.heap_all_heaps);
  java_hprof_->setChecked(o.java_hprof);
  java_processes_->setText(Join(o.java_processes));
  power_->setChecked(o.power);
  battery_ms_->setValue(int(o.battery_poll_ms));
  rails_->setChecked(o.power_rails);
  logcat_->setChecked(o.logcat);
  log_buffers_->setText(Join(o.log_buffers));
  log_priority_->setCurrentText(QString::fromStdString(o.log_min_priority));
  log_tags_->setText(Join(o.log_tags));
}

}  // namespace fathom::gui
