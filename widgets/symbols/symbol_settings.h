// Where the window looks for binaries and ProGuard/R8 maps. Remembered in
// QSettings; turned into the same core options the CLI builds from its flags
// (the environment's paths are added the same way, after the user's own).
#pragma once

#include <QStringList>
#include <vector>

#include "core/symbols/proguard_map.h"
#include "core/symbols/symbolize.h"

namespace fathom::gui {

struct SymbolSearchSettings {
  QStringList binaryPath;  // --binary-path roots
  QStringList indexDirs;   // --index trees
  QStringList debugDirs;   // --debug-dir (default /usr/lib/debug)
  bool useLocal = true;    // not --no-local

  static SymbolSearchSettings load();
  void save() const;
  symbols::SymbolizeOptions toOptions() const;
};

// "package=mapping.txt" lines, as `fathom-cli deobfuscate --map` takes them.
QStringList loadProguardMaps();
void saveProguardMaps(const QStringList& specs);
// The core's parser over the joined lines; the environment's maps when empty.
Result<std::vector<symbols::ProguardMapSpec>> proguardSpecs(const QStringList& specs);

}  // namespace fathom::gui
