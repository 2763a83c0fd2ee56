#include "widgets/search/search_engine.h"

#include <QRegularExpression>

#include "widgets/common/trace_session.h"

namespace fathom::gui {
namespace {

QString sqlString(const QString& s) {
  QString q = s;
  q.replace(QLatin1Char('\''), QLatin1String("''"));
  return QLatin1Char('\'') + q + QLatin1Char('\'');
}

// A predicate on the string expression `expr`: case-insensitive substring (instr
// needs no escaping of % and _, which LIKE would) or a case-insensitive regex.
QString matches(const SearchQuery& q, const QString& expr) {
  if (q.regex) return QStringLiteral("regexp(%1, %2, 'i')").arg(sqlString(q.text), expr);
  return QStringLiteral("instr(lower(%1), %2) > 0").arg(expr, sqlString(q.text.toLower()));
}

}  // namespace

QString searchSql(const SearchQuery& q) {
  const QString threads =
      QStringLiteral(
          "select utid from thread left join process using(upid) where utid != 0 and (%1 or %2)")
          .arg(matches(q, QStringLiteral("thread.name")),
               matches(q, QStringLiteral("process.name")));
  const QString args = QStringLiteral("select arg_set_id from args where %1")
                           .arg(matches(q, QStringLiteral("display_value")));
  return QStringLiteral(
             "select kind, id, ref, ts, dur from ("
             "select 0 as kind, id, track_id as ref, ts, dur from slice where %1 or arg_set_id in "
             "(%2) union all select 1, id, cpu, ts, dur from sched where utid in (%3)) "
             "order by ts, kind, id limit %4")
      .arg(matches(q, QStringLiteral("name")), args, threads)
      .arg(kMaxSearchMatches + 1);
}

SearchResult runSearch(Core& core, const SearchQuery& q) {
  SearchResult r;
  r.query = q;
  if (q.text.isEmpty()) return r;
  if (q.regex && !QRegularExpression(q.text).isValid()) {
    r.error = QStringLiteral("bad regex: ") + QRegularExpression(q.text).errorString();
    return r;
  }
  auto it = core.tp.Query(searchSql(q).toStdString());
  if (it->NextResultSet()) {
    while (it->NextRow()) {
      if (r.matches.size() == kMaxSearchMatches) {
        r.truncated = true;
        break;
      }
      SearchMatch m;
      m.kind = it->Get(0).i == 0 ? SearchMatch::Kind::kSlice : SearchMatch::Kind::kSched;
      m.row = static_cast<quint32>(it->Get(1).i);
      m.ref = static_cast<quint32>(it->Get(2).i);
      m.ts = it->Get(3).i;
      m.dur = it->Get(4).i;
      r.matches.push_back(m);
    }
  }
  if (!it->status().ok()) r.error = QString::fromStdString(it->status().message());
  return r;
}

}  // namespace fathom::gui
