// Light and dark palettes (Fusion style, so the app looks the same on every
// platform and needs no system theme), and the colour rules the widgets share:
// one stable colour per process/library name, readable text on it.
#pragma once

#include <QColor>
#include <QString>

namespace fathom::gui {

enum class Theme { kSystem, kLight, kDark };

Theme savedTheme();
void saveTheme(Theme theme);
// Applies the palette to the application. kSystem follows the platform's
// colour scheme where Qt reports one, else light.
void applyTheme(Theme theme);
bool isDarkPalette();

// A stable, pleasant colour for a name (process, thread, library, package):
// the same name gets the same colour in every widget and every run.
QColor colorForName(const QString& name);
QColor colorForId(quint64 id);
// Black or white, whichever reads better on `background`.
QColor textColorOn(const QColor& background);

}  // namespace fathom::gui
