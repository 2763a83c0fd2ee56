// fathom_mime_check FILE...: prints, per file, the MIME type that the
// shared-mime-info database (as found through XDG_DATA_DIRS) gives it by
// name and by content, as "<file>\t<by name>\t<by content>". Qt reads the
// same mime.cache a desktop's file manager does, so the test needs neither
// xdg-mime nor file(1).
#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QMimeDatabase>
#include <cstdio>

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  QMimeDatabase db;
  const QStringList files = app.arguments().mid(1);
  for (const QString& path : files) {
    const QString by_name =
        db.mimeTypeForFile(QFileInfo(path).fileName(), QMimeDatabase::MatchExtension).name();
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
      std::fprintf(stderr, "fathom_mime_check: cannot open %s\n", qPrintable(path));
      return 1;
    }
    const QString by_content = db.mimeTypeForData(&file).name();
    std::printf("%s\t%s\t%s\n", qPrintable(path), qPrintable(by_name), qPrintable(by_content));
  }
  return 0;
}
