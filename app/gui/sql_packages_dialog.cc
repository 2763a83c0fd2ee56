#include "app/gui/sql_packages_dialog.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace fathom::gui {

SqlPackagesDialog::SqlPackagesDialog(const SqlPackageSettings& settings, QWidget* parent)
    : QDialog(parent), stdlib_(new QLineEdit), packages_(new QListWidget) {
  setWindowTitle(tr("SQL packages"));
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(
      new QLabel(tr("<b>Perfetto standard library folder</b> (the one holding android/, sched/, "
                    "slices/, …): INCLUDE PERFETTO MODULE reads its modules.")));
  auto* stdlib_row = new QHBoxLayout;
  stdlib_->setText(settings.stdlib);
  stdlib_->setPlaceholderText(tr("none (FATHOM_STDLIB if set)"));
  stdlib_row->addWidget(stdlib_, 1);
  auto* browse = new QPushButton(tr("Browse…"));
  connect(browse, &QPushButton::clicked, this, &SqlPackagesDialog::browseStdlib);
  stdlib_row->addWidget(browse);
  layout->addLayout(stdlib_row);

  layout->addWidget(new QLabel(
      tr("<b>SQL packages</b>: module PKG.a.b is the file a/b.sql of package PKG's folder. "
         "Write FOLDER@PKG to give a package another name than its folder's.")));
  for (const QString& p : settings.packages) {
    auto* item = new QListWidgetItem(p, packages_);
    item->setFlags(item->flags() | Qt::ItemIsEditable);
  }
  layout->addWidget(packages_, 1);
  auto* list_row = new QHBoxLayout;
  auto* add = new QPushButton(tr("Add folder…"));
  auto* remove = new QPushButton(tr("Remove"));
  connect(add, &QPushButton::clicked, this, &SqlPackagesDialog::addPackage);
  connect(remove, &QPushButton::clicked, this, [this] { delete packages_->currentItem(); });
  list_row->addWidget(add);
  list_row->addWidget(remove);
  list_row->addStretch(1);
  layout->addLayout(list_row);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  resize(560, 380);
}

SqlPackageSettings SqlPackagesDialog::settings() const {
  SqlPackageSettings s;
  s.stdlib = stdlib_->text().trimmed();
  for (int i = 0; i < packages_->count(); ++i) {
    const QString p = packages_->item(i)->text().trimmed();
    if (!p.isEmpty()) s.packages << p;
  }
  return s;
}

void SqlPackagesDialog::browseStdlib() {
  const QString dir = QFileDialog::getExistingDirectory(
      this, tr("Perfetto standard library folder"), stdlib_->text());
  if (!dir.isEmpty()) stdlib_->setText(dir);
}

void SqlPackagesDialog::addPackage() {
  const QString dir = QFileDialog::getExistingDirectory(this, tr("SQL package folder"));
  if (dir.isEmpty()) return;
  auto* item = new QListWidgetItem(dir, packages_);
  item->setFlags(item->flags() | Qt::ItemIsEditable);
  packages_->setCurrentItem(item);
}

}  // namespace fathom::gui
