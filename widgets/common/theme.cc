#include "widgets/common/theme.h"

#include <QApplication>
#include <QPalette>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>
#include <QStyleHints>
#include <cmath>

namespace fathom::gui {
namespace {

QPalette darkPalette() {
  QPalette p;
  const QColor window(0x2b, 0x2d, 0x31), base(0x1f, 0x21, 0x24), text(0xe6, 0xe6, 0xe6);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, QColor(0x27, 0x29, 0x2d));
  p.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3d, 0x42));
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, Qt::red);
  p.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xff));
  p.setColor(QPalette::Highlight, QColor(0x3d, 0x7e, 0xd6));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::PlaceholderText, QColor(0x8a, 0x8d, 0x91));
  p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x7a, 0x7d, 0x81));
  p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x7a, 0x7d, 0x81));
  p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x7a, 0x7d, 0x81));
  p.setColor(QPalette::Mid, QColor(0x44, 0x47, 0x4c));
  p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
  return p;
}

bool platformPrefersDark() {
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
  return QGuiApplication::styleHints()->colorScheme() == Qt::ColorScheme::Dark;
#else
  // Qt 6.4 has no colour-scheme hint: a dark system palette tells the same.
  const QPalette p = QGuiApplication::palette();
  return p.color(QPalette::Window).lightness() < 128;
#endif
}

}  // namespace

Theme savedTheme() {
  return static_cast<Theme>(QSettings().value(QStringLiteral("theme"), 0).toInt());
}

void saveTheme(Theme theme) { QSettings().setValue(QStringLiteral("theme"), int(theme)); }

void applyTheme(Theme theme) {
  static const bool system_dark = platformPrefersDark();
  QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
  const bool dark = theme == Theme::kDark || (theme == Theme::kSystem && system_dark);
  QApplication::setPalette(dark ? darkPalette() : QApplication::style()->standardPalette());
}

bool isDarkPalette() { return QApplication::palette().color(QPalette::Window).lightness() < 128; }

QColor colorForId(quint64 id) {
  // Golden-ratio hue steps keep neighbouring ids apart.
  const double hue = std::fmod(double(id) * 0.618033988749895, 1.0);
  const bool dark = isDarkPalette();
  return QColor::fromHslF(float(hue), dark ? 0.45f : 0.55f, dark ? 0.45f : 0.62f);
}

QColor colorForName(const QString& name) {
  // FNV-1a over the UTF-16 code units: stable across runs (qHash is seeded).
  quint64 h = 1469598103934665603ull;
  for (QChar c : name) {
    h ^= c.unicode();
    h *= 1099511628211ull;
  }
  return colorForId(h % 1000003);
}

QColor textColorOn(const QColor& background) {
  const double luma =
      0.299 * background.redF() + 0.587 * background.greenF() + 0.114 * background.blueF();
  return luma > 0.55 ? QColor(Qt::black) : QColor(Qt::white);
}

}  // namespace fathom::gui
