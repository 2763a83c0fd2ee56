#include "core/sql/functions/counter_intervals.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/sql/functions/table_ptr.h"

namespace fathom {
namespace {

constexpr const char* kRowsType = "fathom.counter_rows";

struct CounterRow {
  int64_t id, ts, track_id;
  double value;
};
using CounterRows = std::vector<CounterRow>;

void DeleteRows(void* p) { delete static_cast<CounterRows*>(p); }

void AggStep(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto** slot = static_cast<CounterRows**>(sqlite3_aggregate_context(ctx, sizeof(CounterRows*)));
  if (!slot) return sqlite3_result_error_nomem(ctx);
  if (!*slot) *slot = new CounterRows();
  (*slot)->push_back(CounterRow{sqlite3_value_int64(argv[0]), sqlite3_value_int64(argv[1]),
                                sqlite3_value_int64(argv[2]), sqlite3_value_double(argv[3])});
}

void AggFinal(sqlite3_context* ctx) {
  auto** slot = static_cast<CounterRows**>(sqlite3_aggregate_context(ctx, 0));
  CounterRows* rows = slot && *slot ? *slot : new CounterRows();
  sqlite3_result_pointer(ctx, rows, kRowsType, DeleteRows);
}

// One output interval before next_value and delta_value are known.
struct Piece {
  const CounterRow* row;
  int64_t end;
};

// The kept pieces of one track's rows (sorted by ts).
std::vector<Piece> PiecesOf(const std::vector<const CounterRow*>& rows, int64_t trace_end) {
  std::vector<Piece> out;
  for (size_t i = 0; i < rows.size();) {
    size_t j = i;
    while (j + 1 < rows.size() && rows[j + 1]->value == rows[i]->value) ++j;
    const bool last_run = j + 1 == rows.size();
    const int64_t run_end = last_run ? trace_end : rows[j + 1]->ts;
    // [i, j] is a run of one value: its first row, then the rows between
    // merged, then its last row (merged into the middle for the last run).
    out.push_back(Piece{rows[i], i == j ? run_end : rows[i + 1]->ts});
    if (j > i) {
      if (last_run) {
        out.push_back(Piece{rows[i + 1], run_end});
      } else {
        if (j > i + 1) out.push_back(Piece{rows[i + 1], rows[j]->ts});
        out.push_back(Piece{rows[j], run_end});
      }
    }
    i = j + 1;
  }
  return out;
}

void Intervals(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const char* mode = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
  if (!mode || std::string(mode) != "leading")
    return sqlite3_result_error(ctx, "counter_intervals: only 'leading' is supported", -1);
  const int64_t trace_end = sqlite3_value_int64(argv[1]);
  auto* rows = static_cast<CounterRows*>(sqlite3_value_pointer(argv[2], kRowsType));
  if (!rows) return sqlite3_result_error(ctx, "counter_intervals: expected counter rows", -1);
  std::map<int64_t, std::vector<const CounterRow*>> by_track;
  for (const CounterRow& r : *rows) by_track[r.track_id].push_back(&r);
  auto table = std::make_unique<PtrTable>();
  table->names = {"id", "ts", "dur", "track_id", "value", "next_value", "delta_value"};
  table->columns.resize(table->names.size());
  for (PtrColumn& c : table->columns) c.Reserve(rows->size());
  for (auto& [track, list] : by_track) {
    std::stable_sort(list.begin(), list.end(),
                     [](const CounterRow* a, const CounterRow* b) { return a->ts < b->ts; });
    const std::vector<Piece> pieces = PiecesOf(list, trace_end);
    for (size_t k = 0; k < pieces.size(); ++k) {
      const CounterRow& r = *pieces[k].row;
      std::vector<PtrColumn>& c = table->columns;
      c[0].AppendInt(r.id);
      c[1].AppendInt(r.ts);
      c[2].AppendInt(pieces[k].end - r.ts);
      c[3].AppendInt(track);
      c[4].AppendDouble(r.value);
      if (k + 1 < pieces.size())
        c[5].AppendDouble(pieces[k + 1].row->value);
      else
        c[5].AppendNull();
      if (k > 0)
        c[6].AppendDouble(r.value - pieces[k - 1].row->value);
      else
        c[6].AppendNull();
    }
  }
  ResultPtrTable(ctx, std::move(table));
}

}  // namespace

Status RegisterCounterIntervals(sqlite3* db) {
  if (sqlite3_create_function_v2(db, "__intrinsic_counter_per_track_agg", 4, SQLITE_UTF8, nullptr,
                                 nullptr, AggStep, AggFinal, nullptr) != SQLITE_OK)
    return ErrorStatus("cannot register __intrinsic_counter_per_track_agg");
  if (sqlite3_create_function_v2(db, "__intrinsic_counter_intervals", 3, SQLITE_UTF8, nullptr,
                                 Intervals, nullptr, nullptr, nullptr) != SQLITE_OK)
    return ErrorStatus("cannot register __intrinsic_counter_intervals");
  return Status::Ok();
}

}  // namespace fathom
