#include "core/sql/functions/interval_intersect.h"

#include <algorithm>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "core/base/counting_order.h"
#include "core/sql/functions/table_ptr.h"

namespace fathom {
namespace {

constexpr const char* kIntervalsType = "fathom.intervals";

// One table's intervals as the aggregate saw them (ts order), with one
// column of values per partition name in `parts`. When `starts` is not
// empty, the aggregate has grouped them by their one integer partition
// column (GroupInPlace): rows in (partition, ts, input) order, group g in
// rows [starts[g], starts[g + 1]), and input_row[r] where row r came in.
struct IntervalList {
  std::vector<std::string> part_names;
  std::vector<int64_t> ids, ts, dur;
  std::vector<PtrColumn> parts;
  std::vector<size_t> starts;
  std::vector<uint32_t> input_row;
  size_t size() const { return ids.size(); }
  uint32_t InputRow(uint32_t r) const { return input_row.empty() ? r : input_row[r]; }
};

void DeleteList(void* p) { delete static_cast<IntervalList*>(p); }

// `v` with element i moved to rank[i].
void Scatter(const std::vector<uint32_t>& rank, std::vector<int64_t>* v) {
  std::vector<int64_t> out(v->size());
  for (size_t i = 0; i < rank.size(); ++i) out[rank[i]] = (*v)[i];
  v->swap(out);
}

// The usual list, one integer partition column (utid, cpu) and rows in ts
// order (the macros aggregate `ORDER BY ts`), grouped by partition in place:
// a stable counting sort by key gives (partition, ts, input) order and the
// group starts in linear time, and each column is moved by scattering it in
// one pass (a write stream per partition). The intersection then reads each
// partition's intervals side by side; through row indexes, every interval
// of a partition was a cache miss (a thread's spans lie across the whole
// table), and a partitioned copy of each list cost 24 bytes a row more.
void GroupInPlace(IntervalList* l) {
  if (l->part_names.size() != 1 || l->size() == 0 || !std::is_sorted(l->ts.begin(), l->ts.end()))
    return;
  const PtrColumn& part = l->parts[0];
  std::vector<int64_t> keys(l->size());
  for (uint32_t r = 0; r < l->size(); ++r) {
    if (part.TypeAt(r) != SQLITE_INTEGER) return;
    keys[r] = part.IntAt(r);
  }
  std::vector<uint32_t> rank;
  if (!CountingOrder(
          keys.size(), [&](size_t r) { return keys[r]; }, SIZE_MAX, &l->input_row, &l->starts,
          &rank))
    return;
  Scatter(rank, &l->ids);
  Scatter(rank, &l->ts);
  Scatter(rank, &l->dur);
  Scatter(rank, &keys);
  PtrColumn grouped;
  grouped.AppendInts(keys.data(), keys.size());
  l->parts[0] = std::move(grouped);
}

void AggStep(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  auto** slot = static_cast<IntervalList**>(sqlite3_aggregate_context(ctx, sizeof(IntervalList*)));
  if (!slot) return sqlite3_result_error_nomem(ctx);
  if (!*slot) {
    *slot = new IntervalList();
    for (int i = 3; i + 1 < argc; i += 2)
      (*slot)->part_names.push_back(reinterpret_cast<const char*>(sqlite3_value_text(argv[i])));
    (*slot)->parts.resize((*slot)->part_names.size());
  }
  if (argc < 3 || (argc - 3) % 2 != 0)
    return sqlite3_result_error(ctx, "interval agg: expected id, ts, dur and name/value pairs", -1);
  IntervalList* list = *slot;
  list->ids.push_back(sqlite3_value_int64(argv[0]));
  list->ts.push_back(sqlite3_value_int64(argv[1]));
  list->dur.push_back(sqlite3_value_int64(argv[2]));
  for (size_t p = 0; p < list->part_names.size(); ++p) {
    const int arg = 4 + 2 * static_cast<int>(p);
    if (arg < argc && sqlite3_value_type(argv[arg]) == SQLITE_INTEGER)
      list->parts[p].AppendInt(sqlite3_value_int64(argv[arg]));
    else
      list->parts[p].Append(arg < argc ? SqlCell::Of(argv[arg]) : SqlCell());
  }
}

void AggFinal(sqlite3_context* ctx) {
  auto** slot = static_cast<IntervalList**>(sqlite3_aggregate_context(ctx, 0));
  IntervalList* list = slot && *slot ? *slot : new IntervalList();
  GroupInPlace(list);
  sqlite3_result_pointer(ctx, list, kIntervalsType, DeleteList);
}

// Intervals carrying `width` ids each (one per table intersected so far),
// in ts order.
struct Level {
  size_t width = 1;
  std::vector<int64_t> ts, dur, ids;
  size_t size() const { return ts.size(); }
  int64_t end(size_t i) const { return ts[i] + dur[i]; }
};

// One partition's intervals of one table, side by side in ts order.
struct Slice {
  const int64_t* ts;
  const int64_t* dur;
  const int64_t* ids;
  size_t size;
  int64_t end(size_t i) const { return ts[i] + dur[i]; }
};

// All overlapping pairs of `a` and `b` (both in ts order), as intervals
// carrying both ids; a sweep over start times.
void IntersectTwo(const Level& a, const Slice& b, Level* out) {
  out->width = a.width + 1;
  auto emit = [&](uint32_t x, uint32_t y) {
    const int64_t ts = std::max(a.ts[x], b.ts[y]);
    out->ts.push_back(ts);
    out->dur.push_back(std::min(a.end(x), b.end(y)) - ts);
    out->ids.insert(out->ids.end(), a.ids.begin() + static_cast<ptrdiff_t>(x * a.width),
                    a.ids.begin() + static_cast<ptrdiff_t>((x + 1) * a.width));
    out->ids.push_back(b.ids[y]);
  };
  std::vector<uint32_t> active_a, active_b;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size) {
    int64_t t = i < a.size() ? a.ts[i] : b.ts[j];
    if (j < b.size && b.ts[j] < t) t = b.ts[j];
    // Spans that started earlier overlap t only if they end after it.
    std::erase_if(active_a, [&](uint32_t x) { return a.end(x) <= t; });
    std::erase_if(active_b, [&](uint32_t y) { return b.end(y) <= t; });
    const size_t new_a = active_a.size(), new_b = active_b.size();
    while (i < a.size() && a.ts[i] == t) active_a.push_back(static_cast<uint32_t>(i++));
    while (j < b.size && b.ts[j] == t) active_b.push_back(static_cast<uint32_t>(j++));
    // New spans pair with everything active on the other side: all spans
    // starting at t overlap each other, and earlier ones are known to hold t.
    for (size_t x = new_a; x < active_a.size(); ++x)
      for (size_t y = 0; y < active_b.size(); ++y) emit(active_a[x], active_b[y]);
    for (size_t x = 0; x < new_a; ++x)
      for (size_t y = new_b; y < active_b.size(); ++y) emit(active_a[x], active_b[y]);
  }
}

// `level` reordered by ts, ties kept in their order.
void SortByTs(Level* level) {
  if (std::is_sorted(level->ts.begin(), level->ts.end())) return;
  std::vector<uint32_t> order(level->size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t x, uint32_t y) { return level->ts[x] < level->ts[y]; });
  Level sorted;
  sorted.width = level->width;
  for (uint32_t i : order) {
    sorted.ts.push_back(level->ts[i]);
    sorted.dur.push_back(level->dur[i]);
    sorted.ids.insert(sorted.ids.end(), level->ids.begin() + i * level->width,
                      level->ids.begin() + (i + 1) * level->width);
  }
  *level = std::move(sorted);
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

// One table's rows grouped by partition: `rows` ordered by (partition, ts,
// input order); group g is rows[starts[g], starts[g + 1]). `ts`, `dur` and
// `ids` point at those rows' values in that order: the list's own when the
// aggregate grouped it by this partition (`rows` is then empty: the list's
// order), else a copy in `copied`.
struct Partitioned {
  const IntervalList* list = nullptr;
  std::vector<size_t> pos;  // the partition columns' places in list->parts
  std::vector<uint32_t> rows;
  std::vector<size_t> starts;
  const int64_t* ts = nullptr;
  const int64_t* dur = nullptr;
  const int64_t* ids = nullptr;
  std::vector<int64_t> copied[3];
  uint32_t RowAt(size_t i) const { return rows.empty() ? static_cast<uint32_t>(i) : rows[i]; }
  const PtrColumn& Part(size_t k) const { return list->parts[pos[k]]; }
  SqlCell Cell(uint32_t row, size_t k) const { return Part(k).At(row); }
  Slice Group(size_t g) const {
    const size_t b = starts[g];
    return {ts + b, dur + b, ids + b, starts[g + 1] - b};
  }
};

// Compares the partition of row `x` of `a` with row `y` of `b`.
int CompareKeys(const Partitioned& a, uint32_t x, const Partitioned& b, uint32_t y) {
  for (size_t k = 0; k < a.pos.size(); ++k) {
    if (a.Cell(x, k) < b.Cell(y, k)) return -1;
    if (b.Cell(y, k) < a.Cell(x, k)) return 1;
  }
  return 0;
}

// Each row's integer partition key (0 with no partition column), or false
// when the partition is several columns or a value that is not an integer.
bool IntKeys(const Partitioned& t, std::vector<int64_t>* keys) {
  const IntervalList& l = *t.list;
  if (t.pos.size() > 1) return false;
  keys->assign(l.size(), 0);
  // An empty table has no partition columns at all (the aggregate saw no row
  // to name them), so its position points past them.
  if (t.pos.empty() || l.size() == 0) return true;
  const PtrColumn& part = t.Part(0);
  for (uint32_t r = 0; r < l.size(); ++r) {
    if (part.TypeAt(r) != SQLITE_INTEGER) return false;
    (*keys)[r] = part.IntAt(r);
  }
  return true;
}

// The rows by (partition, ts, row) when the partition is one integer column
// or none, in any ts order: sorting plain tuples, not cells. False if not.
bool SortByIntKey(Partitioned* t) {
  const IntervalList& l = *t->list;
  std::vector<int64_t> keys;
  if (!IntKeys(*t, &keys)) return false;
  std::vector<std::tuple<int64_t, int64_t, uint32_t, uint32_t>> keyed(l.size());
  for (uint32_t r = 0; r < l.size(); ++r) keyed[r] = {keys[r], l.ts[r], l.InputRow(r), r};
  std::sort(keyed.begin(), keyed.end());
  for (uint32_t i = 0; i < keyed.size(); ++i) t->rows[i] = std::get<3>(keyed[i]);
  return true;
}

// Copies the values of `rows` in that order for the sweep.
void CopyByRows(Partitioned* t) {
  const IntervalList& l = *t->list;
  const std::vector<int64_t>* from[3] = {&l.ts, &l.dur, &l.ids};
  for (size_t c = 0; c < 3; ++c) {
    t->copied[c].resize(t->rows.size());
    for (size_t i = 0; i < t->rows.size(); ++i) t->copied[c][i] = (*from[c])[t->rows[i]];
  }
  t->ts = t->copied[0].data();
  t->dur = t->copied[1].data();
  t->ids = t->copied[2].data();
}

// Reads the list's own rows, in its order, as the groups `starts`.
void ReadListInPlace(Partitioned* t, std::vector<size_t> starts) {
  t->starts = std::move(starts);
  t->ts = t->list->ts.data();
  t->dur = t->list->dur.data();
  t->ids = t->list->ids.data();
}

void Partition(Partitioned* t) {
  const IntervalList& l = *t->list;
  if (!l.starts.empty() && t->pos.size() == 1 && t->pos[0] == 0)
    return ReadListInPlace(t, l.starts);  // grouped by the aggregate
  if (t->pos.empty() && l.starts.empty() && std::is_sorted(l.ts.begin(), l.ts.end())) {
    // No partition: one group (none for an empty list), in the list's order.
    return ReadListInPlace(
        t, l.size() > 0 ? std::vector<size_t>{0, l.size()} : std::vector<size_t>{0});
  }
  // Otherwise by (partition, ts, input order), comparing cells only when the
  // partition is not one integer column (or none).
  t->rows.resize(l.size());
  for (uint32_t i = 0; i < t->rows.size(); ++i) t->rows[i] = i;
  if (!SortByIntKey(t)) {
    std::stable_sort(t->rows.begin(), t->rows.end(), [&](uint32_t x, uint32_t y) {
      const int c = CompareKeys(*t, x, *t, y);
      if (c != 0) return c < 0;
      return l.ts[x] != l.ts[y] ? l.ts[x] < l.ts[y] : l.InputRow(x) < l.InputRow(y);
    });
  }
  for (size_t i = 0; i < t->rows.size(); ++i)
    if (i == 0 || CompareKeys(*t, t->rows[i - 1], *t, t->rows[i]) != 0) t->starts.push_back(i);
  t->starts.push_back(t->rows.size());
  CopyByRows(t);
}

// The group of `t` whose partition is that of row `row` of `key_of`, or -1.
long FindGroup(const Partitioned& t, const Partitioned& key_of, uint32_t row) {
  size_t lo = 0, hi = t.starts.size() - 1;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    const int c = CompareKeys(t, t.RowAt(t.starts[mid]), key_of, row);
    if (c == 0) return static_cast<long>(mid);
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

// Intersects one partition across the tables; its rows go to `out` (in
// column form: ts, dur, one id per table, the partition's values).
void IntersectGroup(const std::vector<Partitioned>& tables, size_t group, PtrTable* out) {
  const Partitioned& first = tables[0];
  const uint32_t key_row = first.RowAt(first.starts[group]);
  const Slice own = first.Group(group);
  Level acc;
  acc.ts.assign(own.ts, own.ts + own.size);
  acc.dur.assign(own.dur, own.dur + own.size);
  acc.ids.assign(own.ids, own.ids + own.size);
  for (size_t k = 1; k < tables.size() && acc.size() > 0; ++k) {
    const long g = FindGroup(tables[k], first, key_row);
    Level next;
    if (g >= 0) {
      IntersectTwo(acc, tables[k].Group(static_cast<size_t>(g)), &next);
      SortByTs(&next);
    }
    acc = std::move(next);
  }
  std::vector<PtrColumn>& cols = out->columns;
  cols[0].AppendInts(acc.ts.data(), acc.size());
  cols[1].AppendInts(acc.dur.data(), acc.size());
  for (size_t w = 0; w < acc.width; ++w) {
    PtrColumn& col = cols[2 + w];
    for (size_t i = 0; i < acc.size(); ++i) col.AppendInt(acc.ids[i * acc.width + w]);
  }
  for (size_t k = 0; k < first.pos.size(); ++k) {
    const SqlCell key = first.Cell(key_row, k);
    PtrColumn& col = cols[2 + acc.width + k];
    for (size_t i = 0; i < acc.size(); ++i) col.Append(key);
  }
}

void Intersect(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (argc < 3) return sqlite3_result_error(ctx, "interval_intersect: need two tables", -1);
  const char* cols = reinterpret_cast<const char*>(sqlite3_value_text(argv[argc - 1]));
  const std::vector<std::string> names = SplitNames(cols ? cols : "");
  std::vector<Partitioned> tables(static_cast<size_t>(argc - 1));
  for (int k = 0; k + 1 < argc; ++k) {
    Partitioned& t = tables[static_cast<size_t>(k)];
    t.list = static_cast<IntervalList*>(sqlite3_value_pointer(argv[k], kIntervalsType));
    if (!t.list)
      return sqlite3_result_error(ctx, "interval_intersect: argument is not intervals", -1);
    for (const std::string& n : names) {
      auto it = std::find(t.list->part_names.begin(), t.list->part_names.end(), n);
      if (it == t.list->part_names.end() && t.list->size() > 0) {
        const std::string msg = "interval_intersect: no partition column " + n;
        return sqlite3_result_error(ctx, msg.c_str(), -1);
      }
      t.pos.push_back(static_cast<size_t>(it - t.list->part_names.begin()));
    }
    Partition(&t);
  }
  auto table = std::make_unique<PtrTable>();
  table->names = {"ts", "dur"};
  for (size_t k = 0; k < tables.size(); ++k) table->names.push_back("id_" + std::to_string(k));
  for (const std::string& n : names) table->names.push_back(n);
  table->columns.resize(table->names.size());
  for (size_t g = 0; g + 1 < tables[0].starts.size(); ++g) IntersectGroup(tables, g, table.get());
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
