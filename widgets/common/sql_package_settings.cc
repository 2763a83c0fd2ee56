#include "widgets/common/sql_package_settings.h"

#include <QSettings>

#include "widgets/common/trace_session.h"

namespace fathom::gui {
namespace {

const char kStdlibKey[] = "sql/stdlib";
const char kPackagesKey[] = "sql/packages";

}  // namespace

SqlPackageSettings SqlPackageSettings::load() {
  QSettings s;
  SqlPackageSettings out;
  out.stdlib = s.value(QLatin1String(kStdlibKey)).toString();
  out.packages = s.value(QLatin1String(kPackagesKey)).toStringList();
  return out;
}

void SqlPackageSettings::save() const {
  QSettings s;
  s.setValue(QLatin1String(kStdlibKey), stdlib);
  s.setValue(QLatin1String(kPackagesKey), packages);
}

QString applySqlPackageSettings(const SqlPackageSettings& settings, psql::SqlPackages* packages) {
  QStringList problems;
  if (!settings.stdlib.isEmpty()) {
    Status st = packages->SetStdlib(settings.stdlib.toStdString());
    if (!st.ok()) problems << QString::fromStdString(st.message());
  }
  for (const QString& flag : settings.packages) {
    std::string path, name;
    psql::SplitPackageFlag(flag.toStdString(), &path, &name);
    // Re-applied after a change, a package replaces the one of its name.
    Status st = packages->Add(path, name, /*override=*/true);
    if (!st.ok()) problems << QString::fromStdString(st.message());
  }
  return problems.join(QLatin1Char('\n'));
}

void applySqlPackageSettings(const SqlPackageSettings& settings, TraceSession* session,
                             QObject* context, std::function<void(QString)> done) {
  session->query<QString>(
      [settings](Core& core) { return applySqlPackageSettings(settings, &core.tp.sql_packages()); },
      context,
      [done](QString problems) {
        if (done) done(problems);
      });
}

}  // namespace fathom::gui
