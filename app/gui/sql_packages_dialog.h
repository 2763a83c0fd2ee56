// Settings → SQL packages / Perfetto standard library folder: one dialog over
// SqlPackageSettings. The standard library is a folder (the one holding
// android/, sched/, ...); each package a folder, optionally named
// ("PATH@PKG", as --add-sql-package takes it; the folder's name otherwise).
#pragma once

#include <QDialog>

#include "widgets/common/sql_package_settings.h"

class QLineEdit;
class QListWidget;

namespace fathom::gui {

class SqlPackagesDialog : public QDialog {
  Q_OBJECT
 public:
  explicit SqlPackagesDialog(const SqlPackageSettings& settings, QWidget* parent = nullptr);
  SqlPackageSettings settings() const;

  QLineEdit* stdlibEdit() const { return stdlib_; }
  QListWidget* packageList() const { return packages_; }

 private:
  void browseStdlib();
  void addPackage();

  QLineEdit* stdlib_;
  QListWidget* packages_;
};

}  // namespace fathom::gui
