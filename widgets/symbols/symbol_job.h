// The work behind Symbolize… and Deobfuscate…, run on the session's query
// lane: the core's SymbolizeTrace / DeobfuscateTrace (what the CLI calls),
// then the loaded trace with the packets appended is written to a new file
// (the CLI's `cat TRACE SYMBOLS`) for the session to reload.
#pragma once

#include <QString>
#include <QStringList>
#include <vector>

#include "core/symbols/proguard_map.h"
#include "core/symbols/symbolize.h"

namespace fathom::gui {

struct Core;

struct SymbolsOutcome {
  enum class Kind { kSymbolize, kDeobfuscate } kind = Kind::kSymbolize;
  bool ok = false;
  QString error;        // the core's message when !ok
  QString summary;      // one line, as the CLI prints it
  QString outputPath;   // the trace with the packets appended; empty: nothing to add
  QStringList headers;  // the report table
  std::vector<QStringList> rows;
};

SymbolsOutcome symbolizeOnCore(const Core& core, const symbols::SymbolizeOptions& options,
                               const QString& tracePath, const QString& outDir);
SymbolsOutcome deobfuscateOnCore(const Core& core,
                                 const std::vector<symbols::ProguardMapSpec>& maps,
                                 const QString& tracePath, const QString& outDir);

// Where appended traces go: the cache directory's symbolized/ folder.
QString defaultSymbolizedDir();

}  // namespace fathom::gui
