#include "widgets/symbols/symbol_settings.h"

#include <QSettings>

#include "core/symbols/binary_finder.h"
#include "core/symbols/deobfuscate.h"

namespace fathom::gui {
namespace {

QStringList toQt(const std::vector<std::string>& v) {
  QStringList out;
  for (const std::string& s : v) out << QString::fromStdString(s);
  return out;
}

std::vector<std::string> toStd(const QStringList& v) {
  std::vector<std::string> out;
  for (const QString& s : v)
    if (!s.trimmed().isEmpty()) out.push_back(s.trimmed().toStdString());
  return out;
}

}  // namespace

SymbolSearchSettings SymbolSearchSettings::load() {
  QSettings s;
  SymbolSearchSettings out;
  out.binaryPath = s.value(QStringLiteral("symbols/binaryPath")).toStringList();
  out.indexDirs = s.value(QStringLiteral("symbols/indexDirs")).toStringList();
  out.debugDirs =
      s.value(QStringLiteral("symbols/debugDirs"), toQt(symbols::DefaultDebugFileDirectories()))
          .toStringList();
  out.useLocal = s.value(QStringLiteral("symbols/useLocal"), true).toBool();
  return out;
}

void SymbolSearchSettings::save() const {
  QSettings s;
  s.setValue(QStringLiteral("symbols/binaryPath"), binaryPath);
  s.setValue(QStringLiteral("symbols/indexDirs"), indexDirs);
  s.setValue(QStringLiteral("symbols/debugDirs"), debugDirs);
  s.setValue(QStringLiteral("symbols/useLocal"), useLocal);
}

symbols::SymbolizeOptions SymbolSearchSettings::toOptions() const {
  symbols::SymbolizeOptions opt;
  opt.binary_path = toStd(binaryPath);
  opt.index_dirs = toStd(indexDirs);
  opt.debug_dirs = toStd(debugDirs);
  opt.use_local_path = useLocal;
  symbols::AddEnvironmentSearchPaths(&opt);
  return opt;
}

QStringList loadProguardMaps() {
  return QSettings().value(QStringLiteral("symbols/proguardMaps")).toStringList();
}

void saveProguardMaps(const QStringList& specs) {
  QSettings().setValue(QStringLiteral("symbols/proguardMaps"), specs);
}

Result<std::vector<symbols::ProguardMapSpec>> proguardSpecs(const QStringList& specs) {
  std::vector<std::string> lines = toStd(specs);
  if (lines.empty()) return symbols::ProguardMapsFromEnvironment();
  std::string joined;
  for (const std::string& l : lines) joined += (joined.empty() ? "" : ":") + l;
  return symbols::ParseProguardMapSpecs(joined);
}

}  // namespace fathom::gui
