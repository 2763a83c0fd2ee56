#include "widgets/common/format.h"

#include <QLocale>
#include <cmath>
#include <cstdlib>

namespace fathom::gui {

QString formatDuration(int64_t ns) {
  const double a = std::abs(static_cast<double>(ns));
  const QString sign = ns < 0 ? QStringLiteral("-") : QString();
  if (a < 1e3) return sign + QString::number(std::abs(ns)) + QStringLiteral(" ns");
  if (a < 1e6) return sign + QString::number(a / 1e3, 'f', a < 1e4 ? 2 : 1) + QStringLiteral(" us");
  if (a < 1e9) return sign + QString::number(a / 1e6, 'f', a < 1e7 ? 3 : 2) + QStringLiteral(" ms");
  if (a < 60e9) return sign + QString::number(a / 1e9, 'f', 3) + QStringLiteral(" s");
  const int64_t minutes = static_cast<int64_t>(a / 60e9);
  const double seconds = a / 1e9 - minutes * 60.0;
  return sign + QStringLiteral("%1 m %2 s").arg(minutes).arg(seconds, 4, 'f', 1, QLatin1Char('0'));
}

QString formatTimestamp(int64_t ns, int64_t step_ns) {
  // Enough decimals of seconds that neighbouring labels differ.
  int decimals = 3;
  if (step_ns > 0) {
    decimals = 0;
    for (int64_t unit = 1000000000; unit > step_ns && decimals < 9; unit /= 10) ++decimals;
  }
  const QString sign = ns < 0 ? QStringLiteral("-") : QString();
  const double s = std::abs(static_cast<double>(ns)) / 1e9;
  return sign + QString::number(s, 'f', decimals) + QStringLiteral(" s");
}

QString formatBytes(double bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  double v = bytes;
  while (std::abs(v) >= 1024 && unit < 4) {
    v /= 1024;
    ++unit;
  }
  if (unit == 0) return QString::number(static_cast<int64_t>(v)) + QStringLiteral(" B");
  return QString::number(v, 'f', std::abs(v) < 10 ? 2 : 1) + QLatin1Char(' ') +
         QLatin1String(kUnits[unit]);
}

QString formatCount(int64_t n) {
  QLocale c(QLocale::C);
  c.setNumberOptions(QLocale::DefaultNumberOptions);
  QString s = c.toString(static_cast<qlonglong>(n));
  return s.replace(QLatin1Char(','), QChar(0x2009));
}

}  // namespace fathom::gui
