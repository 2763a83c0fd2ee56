// `fathom`: the desktop viewer.
//   fathom [TRACE]
//   fathom --screenshot OUT.png [--size WxH] [--view V] [--select T0,T1] TRACE
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <cstdio>
#include <string_view>

#include "app/gui/main_window.h"
#include "app/gui/screenshot.h"
#include "widgets/common/theme.h"

int main(int argc, char** argv) {
  // Answer --version without a display (packaging checks, scripts).
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--version" || std::string_view(argv[i]) == "-v") {
      std::printf("fathom %s\n", FATHOM_VERSION);
      return 0;
    }
  }
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("Fathom"));
  QApplication::setApplicationName(QStringLiteral("fathom"));
  QApplication::setApplicationDisplayName(QStringLiteral("Fathom"));
  QApplication::setApplicationVersion(QStringLiteral(FATHOM_VERSION));
  QApplication::setDesktopFileName(QStringLiteral("fathom"));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Trace viewer and flamegraph explorer"));
  parser.addHelpOption();
  QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                QStringLiteral("Render TRACE offscreen to OUT.png and exit."),
                                QStringLiteral("OUT.png"));
  QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size for --screenshot."),
                          QStringLiteral("WxH"), QStringLiteral("1600x1000"));
  QCommandLineOption view(QStringLiteral("view"),
                          QStringLiteral("timeline, flamegraph, query or logs."),
                          QStringLiteral("VIEW"), QStringLiteral("timeline"));
  QCommandLineOption select(QStringLiteral("select"),
                            QStringLiteral("Select a time range: seconds from the trace start."),
                            QStringLiteral("T0,T1"));
  QCommandLineOption sql(QStringLiteral("sql"), QStringLiteral("Query for --view query."),
                         QStringLiteral("SQL"));
  parser.addOptions({screenshot, size, view, select, sql});
  parser.addPositionalArgument(QStringLiteral("trace"), QStringLiteral("Trace file to open."));
  parser.process(app);

  fathom::gui::applyTheme(fathom::gui::savedTheme());
  fathom::gui::MainWindow window;
  const QStringList args = parser.positionalArguments();

  if (parser.isSet(screenshot)) {
    if (args.size() != 1) {
      std::fprintf(stderr, "fathom: --screenshot needs exactly one TRACE\n");
      return 2;
    }
    fathom::gui::ScreenshotRequest request;
    request.out = parser.value(screenshot);
    request.trace = args.first();
    const QStringList wh = parser.value(size).split(QLatin1Char('x'));
    if (wh.size() != 2 || wh[0].toInt() <= 0 || wh[1].toInt() <= 0) {
      std::fprintf(stderr, "fathom: --size wants WxH, e.g. 1600x1000\n");
      return 2;
    }
    request.size = QSize(wh[0].toInt(), wh[1].toInt());
    request.view = parser.value(view);
    request.select = parser.value(select);
    request.sql = parser.value(sql);
    return fathom::gui::TakeScreenshot(&window, request);
  }

  window.show();
  if (!args.isEmpty()) window.openTrace(args.first());
  return app.exec();
}
