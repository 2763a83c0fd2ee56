// fathom-icon-render: renders the SVG icons to PNG at build time, because
// rsvg-convert is not a build dependency and Qt (already needed) can do it.
//   fathom-icon-render png IN.svg OUT.png SIZE
//   fathom-icon-render sheet OUT.png IN.svg...   (contact sheet, light and dark)
//   fathom-icon-render ico IN.svg OUT.ico SIZE... (a Windows icon, one image per size)
// The contact sheet is how a person checks the set reads on both palettes.
// The Windows cross build runs this host build of the tool too: its Qt has no
// QtSvg (packaging/README.md), so the icons ship as PNGs and the .exe's ICO.
#include <QBuffer>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>
#include <cstdio>

namespace {

QImage Render(const QString& svg, int size) {
  QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::transparent);
  QSvgRenderer renderer(svg);
  if (!renderer.isValid()) return QImage();
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  renderer.render(&painter);
  return image;
}

int Png(const QString& in, const QString& out, int size) {
  if (size <= 0 || size > 4096) {
    std::fprintf(stderr, "fathom-icon-render: bad size %d\n", size);
    return 2;
  }
  const QImage image = Render(in, size);
  if (image.isNull() || !image.save(out, "PNG")) {
    std::fprintf(stderr, "fathom-icon-render: cannot render %s to %s\n", qPrintable(in),
                 qPrintable(out));
    return 1;
  }
  return 0;
}

// An ICO whose images are PNGs (read by Windows since Vista, and by windres as
// any other ICO): 6-byte header, a 16-byte entry per image, then the images.
int Ico(const QString& in, const QString& out, const QList<int>& sizes) {
  QList<QByteArray> pngs;
  for (int size : sizes) {
    if (size <= 0 || size > 256) {
      std::fprintf(stderr, "fathom-icon-render: bad ICO size %d\n", size);
      return 2;
    }
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    const QImage image = Render(in, size);
    if (image.isNull() || !image.save(&buffer, "PNG")) {
      std::fprintf(stderr, "fathom-icon-render: cannot render %s\n", qPrintable(in));
      return 1;
    }
    pngs << png;
  }
  QByteArray ico;
  auto u8 = [&ico](int v) { ico.append(char(v & 0xff)); };
  auto u16 = [&u8](int v) { u8(v), u8(v >> 8); };
  auto u32 = [&u16](qint64 v) { u16(int(v & 0xffff)), u16(int(v >> 16)); };
  u16(0), u16(1), u16(int(sizes.size()));  // reserved, type 1 = icon, count
  qint64 offset = 6 + 16 * sizes.size();
  for (int i = 0; i < sizes.size(); ++i) {
    u8(sizes[i] % 256), u8(sizes[i] % 256);  // 0 means 256
    u8(0), u8(0), u16(1), u16(32);           // no palette, reserved, planes, bits
    u32(pngs[i].size()), u32(offset);
    offset += pngs[i].size();
  }
  for (const QByteArray& png : pngs) ico += png;
  QFile file(out);
  if (!file.open(QIODevice::WriteOnly) || file.write(ico) != ico.size()) {
    std::fprintf(stderr, "fathom-icon-render: cannot write %s\n", qPrintable(out));
    return 1;
  }
  return 0;
}

// One column per icon; rows: 16, 24 and 48 px on a light and on a dark
// window colour (Fusion's defaults), so contrast problems show at a glance.
int Sheet(const QString& out, const QStringList& icons) {
  const int sizes[] = {16, 24, 48};
  const QColor backgrounds[] = {QColor(0xef, 0xef, 0xef), QColor(0x2a, 0x2a, 0x2a)};
  const int cell = 56;
  QImage sheet(cell * int(icons.size()), cell * 6, QImage::Format_ARGB32_Premultiplied);
  QPainter painter(&sheet);
  int row = 0;
  for (const QColor& background : backgrounds) {
    for (int size : sizes) {
      painter.fillRect(0, row * cell, sheet.width(), cell, background);
      for (int i = 0; i < icons.size(); ++i) {
        const QImage image = Render(icons[i], size);
        if (image.isNull()) {
          std::fprintf(stderr, "fathom-icon-render: invalid SVG %s\n", qPrintable(icons[i]));
          return 1;
        }
        painter.drawImage(i * cell + (cell - size) / 2, row * cell + (cell - size) / 2, image);
      }
      ++row;
    }
  }
  painter.end();
  return sheet.save(out, "PNG") ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  // Raster painting needs no QGuiApplication (nor a display): no text is drawn.
  QStringList args;
  for (int i = 0; i < argc; ++i) args << QString::fromLocal8Bit(argv[i]);
  if (args.size() == 5 && args[1] == QLatin1String("png")) {
    return Png(args[2], args[3], args[4].toInt());
  }
  if (args.size() >= 4 && args[1] == QLatin1String("sheet")) {
    return Sheet(args[2], args.mid(3));
  }
  if (args.size() >= 5 && args[1] == QLatin1String("ico")) {
    QList<int> sizes;
    for (const QString& size : args.mid(4)) sizes << size.toInt();
    return Ico(args[2], args[3], sizes);
  }
  std::fprintf(stderr,
               "usage: fathom-icon-render png IN.svg OUT.png SIZE\n"
               "       fathom-icon-render sheet OUT.png IN.svg...\n"
               "       fathom-icon-render ico IN.svg OUT.ico SIZE...\n");
  return 2;
}
