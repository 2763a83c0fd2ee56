#include "core/sql/functions/interval_intersect.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/sql/functions/table_ptr.h"

namespace fathom {
namespace {

constexpr const char* kIntervalsType = "fathom.intervals";

struct Interval {
  int64_t ts = 0;
  int64_t dur = 0;
  std::vector<int64_t> ids;  // one per table intersected so far
  std::vector<SqlCell> parts;
  int64_t end() const { return ts + dur; }
};

struct IntervalList {
  std::vector<std::string> part_names;
  std::vector<Interval> rows;
};

void DeleteList(void* p) { delete static_cast<IntervalList*>(p); }

void AggStep(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  auto** slot = static_cast<IntervalList**>(sqlite3_aggregate_context(ctx, sizeof(IntervalList*)));
  if (!slot) return sqlite3_result_error_nomem(ctx);
  if (!*slot) {
    *slot = new IntervalList();
    for (int i = 3; i + 1 < argc; i += 2)
      (*slot)->part_names.push_back(reinterpret_cast<const char*>(sqlite3_value_text(argv[i])));
  }
  if (argc < 3 || (argc - 3) % 2 != 0)
    return sqlite3_result_error(ctx, "interval agg: expected id, ts, dur and name/value pairs", -1);
  Interval iv;
  iv.ids.push_back(sqlite3_value_int64(argv[0]));
  iv.ts = sqlite3_value_int64(argv[1]);
  iv.dur = sqlite3_value_int64(argv[2]);
  for (int i = 4; i < argc; i += 2) iv.parts.push_back(SqlCell::Of(argv[i]));
  (*slot)->rows.push_back(std::move(iv));
}

void AggFinal(sqlite3_context* ctx) {
  auto** slot = static_cast<IntervalList**>(sqlite3_aggregate_context(ctx, 0));
  IntervalList* list = slot && *slot ? *slot : new IntervalList();
  sqlite3_result_pointer(ctx, list, kIntervalsType, DeleteList);
}

// All overlapping pairs of `a` and `b` (each sorted by ts), merged into
// intervals carrying both id lists; a sweep over start times.
void IntersectTwo(const std::vector<const Interval*>& a, const std::vector<const Interval*>& b,
                  std::vector<Interval>* out) {
  auto emit = [out](const Interval& x, const Interval& y) {
    Interval r;
    r.ts = std::max(x.ts, y.ts);
    r.dur = std::min(x.end(), y.end()) - r.ts;
    r.ids = x.ids;
    r.ids.insert(r.ids.end(), y.ids.begin(), y.ids.end());
    r.parts = x.parts;
    out->push_back(std::move(r));
  };
  std::vector<const Interval*> active_a, active_b;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    int64_t t = i < a.size() ? a[i]->ts : b[j]->ts;
    if (j < b.size() && b[j]->ts < t) t = b[j]->ts;
    // Spans that started earlier overlap t only if they end after it.
    auto drop = [t](std::vector<const Interval*>* v) {
      v->erase(
          std::remove_if(v->begin(), v->end(), [t](const Interval* x) { return x->end() <= t; }),
          v->end());
    };
    drop(&active_a);
    drop(&active_b);
    const size_t new_a = active_a.size(), new_b = active_b.size();
    while (i < a.size() && a[i]->ts == t) active_a.push_back(a[i++]);
    while (j < b.size() && b[j]->ts == t) active_b.push_back(b[j++]);
    // New spans pair with everything active on the other side: all spans
    // starting at t overlap each other, and earlier ones are known to hold t.
    for (size_t x = new_a; x < active_a.size(); ++x)
      for (size_t y = 0; y < active_b.size(); ++y) emit(*active_a[x], *active_b[y]);
    for (size_t x = 0; x < new_a; ++x)
      for (size_t y = new_b; y < active_b.size(); ++y) emit(*active_a[x], *active_b[y]);
  }
}

std::vector<std::string> SplitNames(std::string text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text + ",") {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != '(' && c != ')' && c != ' ' && c != '\n' && c != '\t' && c != '\'') {
      cur += c;
    }
  }
  return out;
}

void Intersect(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (argc < 3) return sqlite3_result_error(ctx, "interval_intersect: need two tables", -1);
  const char* cols = reinterpret_cast<const char*>(sqlite3_value_text(argv[argc - 1]));
  const std::vector<std::string> names = SplitNames(cols ? cols : "");
  // Each table grouped by partition, with its spans sorted by ts.
  using Key = std::vector<SqlCell>;
  std::vector<std::map<Key, std::vector<const Interval*>>> tables;
  for (int k = 0; k + 1 < argc; ++k) {
    auto* list = static_cast<IntervalList*>(sqlite3_value_pointer(argv[k], kIntervalsType));
    if (!list)
      return sqlite3_result_error(ctx, "interval_intersect: argument is not intervals", -1);
    std::vector<int> pos;
    for (const std::string& n : names) {
      auto it = std::find(list->part_names.begin(), list->part_names.end(), n);
      if (it == list->part_names.end() && !list->rows.empty()) {
        const std::string msg = "interval_intersect: no partition column " + n;
        return sqlite3_result_error(ctx, msg.c_str(), -1);
      }
      pos.push_back(static_cast<int>(it - list->part_names.begin()));
    }
    std::map<Key, std::vector<const Interval*>> by_part;
    for (const Interval& iv : list->rows) {
      Key key;
      for (int p : pos) key.push_back(iv.parts[static_cast<size_t>(p)]);
      by_part[key].push_back(&iv);
    }
    for (auto& [key, v] : by_part)
      std::stable_sort(v.begin(), v.end(),
                       [](const Interval* x, const Interval* y) { return x->ts < y->ts; });
    tables.push_back(std::move(by_part));
  }
  auto table = std::make_unique<PtrTable>();
  table->names = {"ts", "dur"};
  for (size_t k = 0; k < tables.size(); ++k) table->names.push_back("id_" + std::to_string(k));
  for (const std::string& n : names) table->names.push_back(n);
  for (const auto& [key, first] : tables[0]) {
    std::vector<Interval> acc;
    std::vector<const Interval*> cur = first;
    for (size_t k = 1; k < tables.size(); ++k) {
      auto other = tables[k].find(key);
      std::vector<Interval> next;
      if (other != tables[k].end()) IntersectTwo(cur, other->second, &next);
      std::stable_sort(next.begin(), next.end(),
                       [](const Interval& x, const Interval& y) { return x.ts < y.ts; });
      acc = std::move(next);
      cur.clear();
      for (const Interval& iv : acc) cur.push_back(&iv);
    }
    for (const Interval& iv : acc) {
      std::vector<SqlCell> row = {SqlCell::Int(iv.ts), SqlCell::Int(iv.dur)};
      for (int64_t id : iv.ids) row.push_back(SqlCell::Int(id));
      for (const SqlCell& c : key) row.push_back(c);
      table->rows.push_back(std::move(row));
    }
  }
  ResultPtrTable(ctx, std::move(table));
}

}  // namespace

Status RegisterIntervalIntersect(sqlite3* db) {
  if (sqlite3_create_function_v2(db, "__intrinsic_interval_tree_intervals_agg", -1, SQLITE_UTF8,
                                 nullptr, nullptr, AggStep, AggFinal, nullptr) != SQLITE_OK)
    return ErrorStatus("cannot register __intrinsic_interval_tree_intervals_agg");
  if (sqlite3_create_function_v2(db, "__intrinsic_interval_intersect", -1, SQLITE_UTF8, nullptr,
                                 Intersect, nullptr, nullptr, nullptr) != SQLITE_OK)
    return ErrorStatus("cannot register __intrinsic_interval_intersect");
  return Status::Ok();
}

}  // namespace fathom
