#include "app/gui/recent_files.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QObject>

namespace fathom::gui {

QStringList recentFileLabels(const QStringList& paths) {
  QHash<QString, int> names;
  for (const QString& p : paths) ++names[QFileInfo(p).fileName()];
  const QString home = QDir::homePath();
  QStringList out;
  for (const QString& p : paths) {
    const QFileInfo info(p);
    QString label = info.fileName();
    if (names.value(label) > 1) {
      QString folder = QDir::toNativeSeparators(info.absolutePath());
      const QString nativeHome = QDir::toNativeSeparators(home);
      if (!home.isEmpty() && folder.startsWith(nativeHome))
        folder = QLatin1Char('~') + folder.mid(nativeHome.size());
      label += QStringLiteral(" \u2014 ") + folder;
    }
    if (!info.exists()) label += QObject::tr(" (missing)");
    out << label;
  }
  return out;
}

}  // namespace fathom::gui
