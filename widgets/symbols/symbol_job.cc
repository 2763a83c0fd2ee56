#include "widgets/symbols/symbol_job.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include "core/symbols/deobfuscate.h"
#include "widgets/common/trace_session.h"

namespace fathom::gui {
namespace {

// Copies the trace and appends `packets`; a unique name, because the trace
// being read may itself be an earlier output in the same folder.
QString writeAppended(const QString& tracePath, const std::string& packets, const QString& outDir,
                      const QString& suffix, QString* error) {
  QDir().mkpath(outDir);
  const QString out =
      QDir(outDir).filePath(QStringLiteral("%1-%2-%3.pftrace")
                                .arg(QFileInfo(tracePath).completeBaseName(), suffix)
                                .arg(QDateTime::currentMSecsSinceEpoch()));
  QFile in(tracePath), dst(out);
  if (!in.open(QIODevice::ReadOnly) || !dst.open(QIODevice::WriteOnly)) {
    *error = QObject::tr("cannot copy %1 to %2").arg(tracePath, out);
    return {};
  }
  bool ok = true;
  while (ok && !in.atEnd()) {
    QByteArray chunk = in.read(8 << 20);
    ok = !chunk.isEmpty() && dst.write(chunk) == chunk.size();
  }
  ok = ok && dst.write(packets.data(), qint64(packets.size())) == qint64(packets.size());
  if (!ok) *error = QObject::tr("writing %1 failed").arg(out);
  return ok ? out : QString();
}

}  // namespace

QString defaultSymbolizedDir() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::CacheLocation))
      .filePath(QStringLiteral("symbolized"));
}

SymbolsOutcome symbolizeOnCore(const Core& core, const symbols::SymbolizeOptions& options,
                               const QString& tracePath, const QString& outDir) {
  SymbolsOutcome o;
  o.kind = SymbolsOutcome::Kind::kSymbolize;
  auto r = symbols::SymbolizeTrace(core.storage(), options);
  if (!r.ok()) {
    o.error = QString::fromStdString(r.status().message());
    return o;
  }
  o.ok = true;
  o.summary = QObject::tr("%1 of %2 unsymbolized frames resolved in %3 libraries.")
                  .arg(r->resolved)
                  .arg(r->frames)
                  .arg(r->modules.size());
  o.headers = {QObject::tr("Library"), QObject::tr("Build id"), QObject::tr("Unresolved frames"),
               QObject::tr("Why not found")};
  for (const symbols::ModuleReport& m : r->modules) {
    if (m.resolved == m.frames) continue;
    o.rows.push_back(
        {QString::fromStdString(m.path),
         m.build_id_hex.empty() ? QObject::tr("none") : QString::fromStdString(m.build_id_hex),
         QString::number(m.frames - m.resolved), QString::fromStdString(m.problem)});
  }
  if (r->resolved > 0)
    o.outputPath =
        writeAppended(tracePath, r->packets, outDir, QStringLiteral("symbolized"), &o.error);
  if (!o.error.isEmpty()) o.ok = false;
  return o;
}

SymbolsOutcome deobfuscateOnCore(const Core& core,
                                 const std::vector<symbols::ProguardMapSpec>& maps,
                                 const QString& tracePath, const QString& outDir) {
  SymbolsOutcome o;
  o.kind = SymbolsOutcome::Kind::kDeobfuscate;
  auto r = symbols::DeobfuscateTrace(core.storage(), maps);
  if (!r.ok()) {
    o.error = QString::fromStdString(r.status().message());
    return o;
  }
  o.ok = true;
  o.summary = QObject::tr("%1 of %2 classes in the trace mapped, %3 fields/methods.")
                  .arg(r->classes_mapped)
                  .arg(r->classes)
                  .arg(r->members_mapped);
  o.headers = {QObject::tr("Class"), QObject::tr("Why not mapped")};
  for (const std::string& c : r->unmapped)
    o.rows.push_back({QString::fromStdString(c), QObject::tr("in no mapping file")});
  if (r->classes - r->classes_mapped > r->unmapped.size())
    o.rows.push_back({QStringLiteral("…"), QObject::tr("more classes not listed")});
  for (const std::string& p : r->packages_without_frames)
    o.rows.push_back(
        {QString::fromStdString(p), QString::fromStdString(symbols::NoFramesOfPackageNote(p))});
  if (r->classes_mapped > 0)
    o.outputPath =
        writeAppended(tracePath, r->packets, outDir, QStringLiteral("deobfuscated"), &o.error);
  if (!o.error.isEmpty()) o.ok = false;
  return o;
}

}  // namespace fathom::gui
