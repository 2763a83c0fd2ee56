#include "core/sql/functions/slice_layout_vtab.h"

#include <string>
#include <string_view>
#include <vector>

#include "core/sql/functions/slice_layout.h"

namespace fathom {
namespace {

enum Col : int { kId, kLayoutDepth, kFilterTrackIds };

struct VTab : sqlite3_vtab {
  const TraceStorage* storage;
};

struct Cursor : sqlite3_vtab_cursor {
  std::vector<SliceLayoutRow> rows;
  size_t next = 0;
};

int Connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**) {
  int rc = sqlite3_declare_vtab(
      db, "CREATE TABLE x(id BIGINT, layout_depth BIGINT, filter_track_ids TEXT HIDDEN)");
  if (rc != SQLITE_OK) return rc;
  auto* v = new VTab();
  v->storage = static_cast<const TraceStorage*>(aux);
  *out = v;
  return SQLITE_OK;
}

int Disconnect(sqlite3_vtab* v) {
  delete static_cast<VTab*>(v);
  return SQLITE_OK;
}

// The track list arrives as an equality constraint on the hidden column;
// without it there is nothing to lay out.
int BestIndex(sqlite3_vtab* tab, sqlite3_index_info* info) {
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (c.iColumn != kFilterTrackIds || c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (!c.usable) return SQLITE_CONSTRAINT;  // the list depends on a later table
    info->aConstraintUsage[i].argvIndex = 1;
    info->aConstraintUsage[i].omit = 1;
    info->idxNum = 1;
    info->estimatedCost = 1000;
    return SQLITE_OK;
  }
  sqlite3_free(tab->zErrMsg);
  tab->zErrMsg = sqlite3_mprintf("experimental_slice_layout: filter_track_ids is required");
  return SQLITE_ERROR;
}

int Open(sqlite3_vtab*, sqlite3_vtab_cursor** out) {
  *out = new Cursor();
  return SQLITE_OK;
}

int Close(sqlite3_vtab_cursor* c) {
  delete static_cast<Cursor*>(c);
  return SQLITE_OK;
}

int Filter(sqlite3_vtab_cursor* cur, int, const char*, int argc, sqlite3_value** argv) {
  auto* c = static_cast<Cursor*>(cur);
  auto* tab = static_cast<VTab*>(cur->pVtab);
  c->rows.clear();
  c->next = 0;
  if (argc < 1 || sqlite3_value_type(argv[0]) != SQLITE_TEXT) {
    sqlite3_free(tab->zErrMsg);
    tab->zErrMsg = sqlite3_mprintf("experimental_slice_layout: invalid input track id list");
    return SQLITE_ERROR;
  }
  const std::string_view list(reinterpret_cast<const char*>(sqlite3_value_text(argv[0])),
                              static_cast<size_t>(sqlite3_value_bytes(argv[0])));
  c->rows = ComputeSliceLayout(*tab->storage, ParseTrackIdList(list));
  return SQLITE_OK;
}

int Next(sqlite3_vtab_cursor* cur) {
  ++static_cast<Cursor*>(cur)->next;
  return SQLITE_OK;
}

int Eof(sqlite3_vtab_cursor* cur) {
  auto* c = static_cast<Cursor*>(cur);
  return c->next >= c->rows.size();
}

int Column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
  auto* c = static_cast<Cursor*>(cur);
  const SliceLayoutRow& r = c->rows[c->next];
  if (col == kId) {
    sqlite3_result_int64(ctx, r.slice_id);
  } else if (col == kLayoutDepth) {
    sqlite3_result_int64(ctx, r.layout_depth);
  } else {
    sqlite3_result_null(ctx);
  }
  return SQLITE_OK;
}

int Rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  *out = static_cast<sqlite3_int64>(static_cast<Cursor*>(cur)->next);
  return SQLITE_OK;
}

sqlite3_module MakeModule() {
  sqlite3_module m{};
  m.xCreate = nullptr;  // eponymous only
  m.xConnect = Connect;
  m.xBestIndex = BestIndex;
  m.xDisconnect = Disconnect;
  m.xDestroy = Disconnect;
  m.xOpen = Open;
  m.xClose = Close;
  m.xFilter = Filter;
  m.xNext = Next;
  m.xEof = Eof;
  m.xColumn = Column;
  m.xRowid = Rowid;
  return m;
}

const sqlite3_module kModule = MakeModule();

}  // namespace

Status RegisterSliceLayoutFunction(sqlite3* db, TraceStorage* storage) {
  if (sqlite3_create_module_v2(db, "experimental_slice_layout", &kModule, storage, nullptr) !=
      SQLITE_OK)
    return ErrorStatus(std::string("cannot register experimental_slice_layout: ") +
                       sqlite3_errmsg(db));
  return Status::Ok();
}

}  // namespace fathom
