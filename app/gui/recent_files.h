// The Open Recent list: what each entry says. Entries with the same file
// name are told apart by their folder, and a file that is gone says so.
#pragma once

#include <QString>
#include <QStringList>

namespace fathom::gui {

// One label per path, in order: "sample.pftrace", or when another entry has
// the same file name "sample.pftrace — ~/traces/a" (home shortened to ~);
// " (missing)" is appended for a file that no longer exists.
QStringList recentFileLabels(const QStringList& paths);

}  // namespace fathom::gui
