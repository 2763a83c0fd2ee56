// The two option dialogs: where to look for binaries (the CLI's
// --binary-path / --index / --debug-dir / --no-local) and which ProGuard/R8
// maps to use (--map package=file). One entry per line.
#pragma once

#include <QDialog>

#include "widgets/symbols/symbol_settings.h"

class QCheckBox;
class QPlainTextEdit;

namespace fathom::gui {

class SymbolSearchDialog : public QDialog {
  Q_OBJECT
 public:
  explicit SymbolSearchDialog(const SymbolSearchSettings& settings, QWidget* parent = nullptr);
  SymbolSearchSettings settings() const;

 private:
  QPlainTextEdit* binary_path_;
  QPlainTextEdit* index_dirs_;
  QPlainTextEdit* debug_dirs_;
  QCheckBox* use_local_;
};

class ProguardMapsDialog : public QDialog {
  Q_OBJECT
 public:
  explicit ProguardMapsDialog(const QStringList& specs, QWidget* parent = nullptr);
  QStringList specs() const;

 private:
  void addFile();
  QPlainTextEdit* maps_;
};

}  // namespace fathom::gui
