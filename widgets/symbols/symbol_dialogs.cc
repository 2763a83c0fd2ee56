#include "widgets/symbols/symbol_dialogs.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace fathom::gui {
namespace {

QStringList linesOf(const QPlainTextEdit* edit) {
  QStringList out;
  for (const QString& l : edit->toPlainText().split(QLatin1Char('\n')))
    if (!l.trimmed().isEmpty()) out << l.trimmed();
  return out;
}

// A list of folders, one per line, with a button that appends one.
QWidget* folderList(QPlainTextEdit* edit, const QStringList& dirs, QWidget* parent) {
  edit->setPlainText(dirs.join(QLatin1Char('\n')));
  edit->setFixedHeight(64);
  auto* row = new QWidget;
  auto* h = new QHBoxLayout(row);
  h->setContentsMargins(0, 0, 0, 0);
  h->addWidget(edit, 1);
  auto* add = new QPushButton(QObject::tr("Add…"));
  QObject::connect(add, &QPushButton::clicked, parent, [edit, parent] {
    QString dir = QFileDialog::getExistingDirectory(parent, QObject::tr("Add folder"));
    if (!dir.isEmpty()) edit->appendPlainText(dir);
  });
  h->addWidget(add, 0, Qt::AlignTop);
  return row;
}

QDialogButtonBox* okCancel(QDialog* d, const QString& okText) {
  auto* box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  box->button(QDialogButtonBox::Ok)->setText(okText);
  QObject::connect(box, &QDialogButtonBox::accepted, d, &QDialog::accept);
  QObject::connect(box, &QDialogButtonBox::rejected, d, &QDialog::reject);
  return box;
}

}  // namespace

SymbolSearchDialog::SymbolSearchDialog(const SymbolSearchSettings& s, QWidget* parent)
    : QDialog(parent),
      binary_path_(new QPlainTextEdit),
      index_dirs_(new QPlainTextEdit),
      debug_dirs_(new QPlainTextEdit),
      use_local_(new QCheckBox(tr("Also the library's own path on this computer"))) {
  setWindowTitle(tr("Symbolize"));
  auto* v = new QVBoxLayout(this);
  auto* intro = new QLabel(
      tr("Native frames without names are resolved with llvm-symbolizer from binaries whose "
         "build id matches. FATHOM_BINARY_PATH and PERFETTO_BINARY_PATH are searched too."));
  intro->setWordWrap(true);
  v->addWidget(intro);
  auto* form = new QFormLayout;
  form->addRow(tr("Binary folders:"), folderList(binary_path_, s.binaryPath, this));
  form->addRow(tr("Index by build id:"), folderList(index_dirs_, s.indexDirs, this));
  form->addRow(tr("Debug file folders:"), folderList(debug_dirs_, s.debugDirs, this));
  use_local_->setChecked(s.useLocal);
  form->addRow(QString(), use_local_);
  v->addLayout(form);
  v->addWidget(okCancel(this, tr("Symbolize")));
  resize(560, height());
}

SymbolSearchSettings SymbolSearchDialog::settings() const {
  SymbolSearchSettings s;
  s.binaryPath = linesOf(binary_path_);
  s.indexDirs = linesOf(index_dirs_);
  s.debugDirs = linesOf(debug_dirs_);
  s.useLocal = use_local_->isChecked();
  return s;
}

ProguardMapsDialog::ProguardMapsDialog(const QStringList& specs, QWidget* parent)
    : QDialog(parent), maps_(new QPlainTextEdit) {
  setWindowTitle(tr("Deobfuscate"));
  auto* v = new QVBoxLayout(this);
  auto* intro =
      new QLabel(tr("ProGuard/R8 mapping files, one per line as package=mapping.txt. Empty: "
                    "FATHOM_PROGUARD_MAP or PERFETTO_PROGUARD_MAP."));
  intro->setWordWrap(true);
  v->addWidget(intro);
  maps_->setPlainText(specs.join(QLatin1Char('\n')));
  v->addWidget(maps_);
  auto* add = new QPushButton(tr("Add mapping file…"));
  connect(add, &QPushButton::clicked, this, &ProguardMapsDialog::addFile);
  v->addWidget(add, 0, Qt::AlignLeft);
  v->addWidget(okCancel(this, tr("Deobfuscate")));
  resize(560, 260);
}

void ProguardMapsDialog::addFile() {
  QString file = QFileDialog::getOpenFileName(this, tr("Mapping file"), QString(),
                                              tr("Mapping files (*.txt *.map);;All files (*)"));
  if (file.isEmpty()) return;
  bool ok = false;
  QString package = QInputDialog::getText(this, tr("Package"), tr("App package of %1:").arg(file),
                                          QLineEdit::Normal, QString(), &ok);
  if (ok) maps_->appendPlainText(package.trimmed() + QLatin1Char('=') + file);
}

QStringList ProguardMapsDialog::specs() const { return linesOf(maps_); }

}  // namespace fathom::gui
