// Per-source toggles of the Record page, one group per data source, mapped
// 1:1 onto record::RecordOptions (and so onto TraceConfig fields).
#pragma once

#include <QWidget>

#include "record/trace_config_builder.h"

class QCheckBox;
class QComboBox;
class QGroupBox;
class QLineEdit;
class QSpinBox;

namespace fathom::gui {

class RecordOptionsForm : public QWidget {
  Q_OBJECT
 public:
  explicit RecordOptionsForm(QWidget* parent = nullptr);
  record::RecordOptions options() const;
  void setOptions(const record::RecordOptions& options);

 signals:
  void changed();

 private:
  QSpinBox* spin(int min, int max, int value, const QString& suffix);
  QGroupBox* group(const QString& title);
  QGroupBox* makeCallstacksGroup();
  QGroupBox* makeInodeGroup();

  // Choices without a widget (e.g. a preset's counter lists) survive edits.
  record::RecordOptions base_;

  // Session
  QSpinBox* duration_s_;
  QCheckBox* until_stopped_;
  QSpinBox* buffer_mb_;
  QComboBox* mode_;
  // Sources
  QGroupBox* ftrace_;
  QLineEdit* ftrace_events_;
  QLineEdit* atrace_categories_;
  QLineEdit* atrace_apps_;
  QCheckBox* compact_sched_;
  QGroupBox* process_stats_;
  QSpinBox* proc_poll_ms_;
  QGroupBox* sys_stats_;
  QSpinBox* meminfo_ms_;
  QSpinBox* vmstat_ms_;
  QSpinBox* stat_ms_;
  QGroupBox* callstacks_;
  QSpinBox* callstack_hz_;
  QLineEdit* callstack_processes_;
  QCheckBox* callstack_kernel_;
  QGroupBox* inode_;
  QLineEdit* inode_mount_points_;
  QSpinBox* inode_batch_;
  QSpinBox* inode_interval_ms_;
  QGroupBox* heapprofd_;
  QLineEdit* heap_processes_;
  QSpinBox* heap_interval_;
  QSpinBox* heap_dump_ms_;
  QSpinBox* heap_shmem_mb_;
  QCheckBox* heap_block_;
  QCheckBox* heap_all_;
  QGroupBox* java_hprof_;
  QLineEdit* java_processes_;
  QGroupBox* power_;
  QSpinBox* battery_ms_;
  QCheckBox* rails_;
  QGroupBox* logcat_;
  QLineEdit* log_buffers_;
  QComboBox* log_priority_;
  QLineEdit* log_tags_;
};

}  // namespace fathom::gui
