// The app's icons by name, from its resources (resources/icons/NAME.svg).
// A Qt without QtSvg (the Windows cross build's) cannot draw SVG icons, so
// that build ships PNG renderings instead (resources/icon_pngs.cmake):
// :/icons/NAME.png and :/icons/NAME@2x.png. This picks whichever is there,
// so the code never names a file format.
#pragma once

#include <QIcon>

namespace fathom::gui {

// The icon `name` (e.g. "open"); a null icon when the resources lack it
// (tests and tools that do not link resources/fathom.qrc).
QIcon resourceIcon(const char* name);

}  // namespace fathom::gui
