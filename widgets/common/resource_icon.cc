#include "widgets/common/resource_icon.h"

#include <QFile>
#include <QString>

namespace fathom::gui {

QIcon resourceIcon(const char* name) {
  const QString base = QStringLiteral(":/icons/") + QLatin1String(name);
  const QString svg = base + QStringLiteral(".svg");
  if (QFile::exists(svg)) return QIcon(svg);
  const QString png = base + QStringLiteral(".png");
  if (!QFile::exists(png)) return QIcon();
  // Both sizes explicitly: QIcon(png) would add the @2x file only on a
  // high-DPI screen, and a 48 px icon also scales better than 24 px upwards.
  QIcon icon;
  icon.addFile(png);
  const QString png2x = base + QStringLiteral("@2x.png");
  if (QFile::exists(png2x)) icon.addFile(png2x);
  return icon;
}

}  // namespace fathom::gui
