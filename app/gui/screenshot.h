// `fathom --screenshot OUT.png FILE`: load, show one view, wait until every
// widget has its data, render the window offscreen to a PNG and exit. Used by
// tests, docs and anyone who wants a picture of a trace from a script.
#pragma once

#include <QSize>
#include <QString>

namespace fathom::gui {

class MainWindow;

struct ScreenshotRequest {
  QString out;
  QString trace;
  QSize size{1600, 1000};
  QString view = QStringLiteral("timeline");  // timeline|flamegraph|query|logs
  QString select;                             // "T0,T1": seconds from trace start
  QString sql;                                // for --view query
};

// Returns the process exit code; prints errors to stderr.
int TakeScreenshot(MainWindow* window, const ScreenshotRequest& request);

}  // namespace fathom::gui
