// The GUI's SQL packages (Settings → SQL packages and Settings → Perfetto
// standard library folder), remembered with QSettings. The CLI's
// --add-sql-package PATH[@PKG] and --override-stdlib PATH, for the trace
// sessions the GUI opens: every SQL the GUI runs (the Query page, the
// search box's ':' SQL) goes through the session's engine, so applying them
// there is enough. An empty standard-library folder leaves FATHOM_STDLIB (if
// set) in force.
#pragma once

#include <QString>
#include <functional>

class QObject;
#include <QStringList>

#include "core/sql/perfetto_sql/packages.h"

namespace fathom::gui {

struct SqlPackageSettings {
  QString stdlib;        // the folder holding android/, sched/, ... ("" for none)
  QStringList packages;  // "PATH" or "PATH@PKG", as --add-sql-package takes them

  static SqlPackageSettings load();
  void save() const;
};

class TraceSession;

// Applies `settings` to `packages`; a package that cannot be added (not a
// folder, a bad name) is skipped and its message returned, one per line.
QString applySqlPackageSettings(const SqlPackageSettings& settings, psql::SqlPackages* packages);

// Applies `settings` to an open session's engine, on its query lane (after
// the work queued before); `done` gets the problems ("" when none) on the
// GUI thread. Modules already included stay included.
void applySqlPackageSettings(const SqlPackageSettings& settings, TraceSession* session,
                             QObject* context, std::function<void(QString)> done = {});

}  // namespace fathom::gui
