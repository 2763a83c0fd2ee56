#include "core/sql/flamegraph_vtab.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "core/flamegraph/flamegraph.h"
#include "core/flamegraph/profiles.h"
#include "core/storage/trace_storage.h"

namespace fathom {
namespace {

// Hidden argument columns (in positional-argument order), then the output.
enum Col : int {
  kId,
  kProfileType,
  kTsIn,
  kTsConstraint,
  kUpid,
  kUpidGroup,
  kFocusStr,
  kTs,
  kDepth,
  kName,
  kMapName,
  kCount,
  kCumulativeCount,
  kSize,
  kCumulativeSize,
  kAllocCount,
  kCumulativeAllocCount,
  kAllocSize,
  kCumulativeAllocSize,
  kParentId,
  kSourceFile,
  kLineNumber,
};
constexpr int kFirstArg = kProfileType, kLastArg = kFocusStr;

struct VTab : sqlite3_vtab {
  const TraceStorage* storage;
};

struct Args {
  std::optional<std::string> profile_type, ts_constraint, upid_group, focus;
  std::optional<int64_t> ts, upid;
};

struct Cursor : sqlite3_vtab_cursor {
  Args args;
  Flamegraph graph;
  uint32_t row = 0;
};

int Connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**) {
  int rc = sqlite3_declare_vtab(
      db,
      "CREATE TABLE x(id BIGINT, profile_type TEXT HIDDEN, ts_in BIGINT HIDDEN, "
      "ts_constraint TEXT HIDDEN, upid BIGINT HIDDEN, upid_group TEXT HIDDEN, "
      "focus_str TEXT HIDDEN, ts BIGINT, depth BIGINT, name TEXT, map_name TEXT, count BIGINT, "
      "cumulative_count BIGINT, size BIGINT, cumulative_size BIGINT, alloc_count BIGINT, "
      "cumulative_alloc_count BIGINT, alloc_size BIGINT, cumulative_alloc_size BIGINT, "
      "parent_id BIGINT, source_file TEXT, line_number BIGINT)");
  if (rc != SQLITE_OK) return rc;
  auto* v = new VTab();
  v->storage = static_cast<TraceStorage*>(aux);
  *out = v;
  return SQLITE_OK;
}

int Disconnect(sqlite3_vtab* v) {
  delete static_cast<VTab*>(v);
  return SQLITE_OK;
}

// Arguments arrive as equality constraints on the hidden columns; idxNum is
// the bitmask of the ones given, argv follows column order.
int BestIndex(sqlite3_vtab*, sqlite3_index_info* info) {
  int mask = 0;
  int slot[kLastArg + 1] = {};
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (c.iColumn < kFirstArg || c.iColumn > kLastArg) continue;
    if (!c.usable) return SQLITE_CONSTRAINT;  // argument depends on a later table
    if (c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    mask |= 1 << c.iColumn;
    slot[c.iColumn] = i;
  }
  int argv = 1;
  for (int col = kFirstArg; col <= kLastArg; ++col) {
    if (!(mask & (1 << col))) continue;
    info->aConstraintUsage[slot[col]].argvIndex = argv++;
    info->aConstraintUsage[slot[col]].omit = 1;
  }
  info->idxNum = mask;
  info->estimatedCost = mask & (1 << kProfileType) ? 10 : 1e9;
  return SQLITE_OK;
}

int Open(sqlite3_vtab*, sqlite3_vtab_cursor** out) {
  *out = new Cursor();
  return SQLITE_OK;
}

int Close(sqlite3_vtab_cursor* c) {
  delete static_cast<Cursor*>(c);
  return SQLITE_OK;
}

std::optional<std::string> TextArg(sqlite3_value* v) {
  if (sqlite3_value_type(v) == SQLITE_NULL) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(sqlite3_value_text(v)));
}
std::optional<int64_t> IntArg(sqlite3_value* v) {
  if (sqlite3_value_type(v) == SQLITE_NULL) return std::nullopt;
  return sqlite3_value_int64(v);
}

bool ContainsIgnoreCase(std::string_view haystack, std::string_view needle) {
  auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                        [](char a, char b) { return std::tolower(a) == std::tolower(b); });
  return it != haystack.end();
}

// Upstream's focus_str: keep the nodes whose name contains `focus`
// (case-insensitively), their ancestors and their descendants. Works on an
// unfinalized tree (creation order: parents before children).
Flamegraph FocusKeepingAncestors(const Flamegraph& in, std::string_view focus) {
  const auto& nodes = in.nodes();
  std::vector<bool> keep(nodes.size(), false);
  for (uint32_t i = 0; i < nodes.size(); ++i)
    keep[i] = ContainsIgnoreCase(in.name(i), focus) || (nodes[i].parent && keep[*nodes[i].parent]);
  for (uint32_t i = static_cast<uint32_t>(nodes.size()); i-- > 0;)
    if (keep[i] && nodes[i].parent) keep[*nodes[i].parent] = true;
  Flamegraph out;
  std::vector<uint32_t> new_id(nodes.size());
  for (uint32_t i = 0; i < nodes.size(); ++i) {
    if (!keep[i]) continue;
    const FlamegraphNode& n = nodes[i];
    std::optional<uint32_t> parent;
    if (n.parent) parent = new_id[*n.parent];
    FgStringId map = in.has_map_name(i) ? out.Intern(in.map_name(i)) : kFgNoString;
    new_id[i] = out.Child(parent, out.Intern(in.name(i)), map);
    FlamegraphNode& m = out.mutable_node(new_id[i]);
    m.count = n.count;
    m.size = n.size;
    m.alloc_count = n.alloc_count;
    m.alloc_size = n.alloc_size;
  }
  return out;
}

// "<= 123", ">=5, <10", "=7": the UI's timestamp bounds.
void ParseTsConstraint(const std::string& s, TsFilter* f) {
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == ',' || s[i] == '&')) ++i;
    std::string op;
    while (i < s.size() && (s[i] == '<' || s[i] == '>' || s[i] == '=' || s[i] == '!')) op += s[i++];
    char* end = nullptr;
    long long v = std::strtoll(s.c_str() + i, &end, 10);
    if (end == s.c_str() + i) break;
    i = static_cast<size_t>(end - s.c_str());
    if (op == "<")
      f->lt = v;
    else if (op == "<=")
      f->le = v;
    else if (op == ">")
      f->gt = v;
    else if (op == ">=")
      f->ge = v;
    else if (op == "=" || op == "==")
      f->eq = v;
  }
}

int Filter(sqlite3_vtab_cursor* cur, int idx_num, const char*, int argc, sqlite3_value** argv) {
  auto* c = static_cast<Cursor*>(cur);
  const TraceStorage& storage = *static_cast<VTab*>(cur->pVtab)->storage;
  c->args = Args{};
  c->graph = Flamegraph();
  c->row = 0;
  int a = 0;
  for (int col = kFirstArg; col <= kLastArg && a < argc; ++col) {
    if (!(idx_num & (1 << col))) continue;
    sqlite3_value* v = argv[a++];
    switch (col) {
      case kProfileType:
        c->args.profile_type = TextArg(v);
        break;
      case kTsIn:
        c->args.ts = IntArg(v);
        break;
      case kTsConstraint:
        c->args.ts_constraint = TextArg(v);
        break;
      case kUpid:
        c->args.upid = IntArg(v);
        break;
      case kUpidGroup:
        c->args.upid_group = TextArg(v);
        break;
      case kFocusStr:
        c->args.focus = TextArg(v);
        break;
    }
  }
  const Args& args = c->args;
  if (!args.profile_type) return SQLITE_OK;
  std::vector<uint32_t> upids;
  if (args.upid) upids.push_back(static_cast<uint32_t>(*args.upid));
  if (args.upid_group) {
    for (const char* p = args.upid_group->c_str(); *p;) {
      char* end = nullptr;
      long v = std::strtol(p, &end, 10);
      if (end == p) {
        ++p;
        continue;
      }
      upids.push_back(static_cast<uint32_t>(v));
      p = end;
    }
  }
  if (*args.profile_type == "graph") {
    if (!args.ts || upids.empty()) return SQLITE_OK;
    Result<Flamegraph> g = BuildHeapGraphFlamegraph(storage, upids[0], *args.ts);
    if (g.ok()) c->graph = std::move(*g);
  } else if (*args.profile_type == "native") {
    TsFilter f;
    if (args.ts_constraint)
      ParseTsConstraint(*args.ts_constraint, &f);
    else if (args.ts)
      f.le = *args.ts;  // everything allocated up to this dump
    c->graph = BuildNativeFlamegraph(storage, upids, f);
  }
  if (args.focus && !args.focus->empty()) c->graph = FocusKeepingAncestors(c->graph, *args.focus);
  c->graph.Finalize();
  return SQLITE_OK;
}

int Next(sqlite3_vtab_cursor* cur) {
  ++static_cast<Cursor*>(cur)->row;
  return SQLITE_OK;
}

int Eof(sqlite3_vtab_cursor* cur) {
  auto* c = static_cast<Cursor*>(cur);
  return c->row >= c->graph.nodes().size();
}

void ResultString(sqlite3_context* ctx, const Flamegraph& g, FgStringId id) {
  if (id == kFgNoString) {
    sqlite3_result_null(ctx);
    return;
  }
  std::string_view v = g.str(id);
  sqlite3_result_text(ctx, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

void ResultOpt(sqlite3_context* ctx, const std::optional<std::string>& s) {
  if (s)
    sqlite3_result_text(ctx, s->c_str(), static_cast<int>(s->size()), SQLITE_TRANSIENT);
  else
    sqlite3_result_null(ctx);
}

int Column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
  auto* c = static_cast<Cursor*>(cur);
  const FlamegraphNode& n = c->graph.nodes()[c->row];
  switch (col) {
    case kId:
      sqlite3_result_int64(ctx, c->row);
      break;
    case kProfileType:
      ResultOpt(ctx, c->args.profile_type);
      break;
    case kTsIn:
    case kTs:
      if (c->args.ts)
        sqlite3_result_int64(ctx, *c->args.ts);
      else
        sqlite3_result_null(ctx);
      break;
    case kTsConstraint:
      ResultOpt(ctx, c->args.ts_constraint);
      break;
    case kUpid:
      if (c->args.upid)
        sqlite3_result_int64(ctx, *c->args.upid);
      else
        sqlite3_result_null(ctx);
      break;
    case kUpidGroup:
      ResultOpt(ctx, c->args.upid_group);
      break;
    case kFocusStr:
      ResultOpt(ctx, c->args.focus);
      break;
    case kDepth:
      sqlite3_result_int64(ctx, n.depth);
      break;
    case kName:
      ResultString(ctx, c->graph, n.name);
      break;
    case kMapName:
      ResultString(ctx, c->graph, n.map_name);
      break;
    case kCount:
      sqlite3_result_int64(ctx, n.count);
      break;
    case kCumulativeCount:
      sqlite3_result_int64(ctx, n.cumulative_count);
      break;
    case kSize:
      sqlite3_result_int64(ctx, n.size);
      break;
    case kCumulativeSize:
      sqlite3_result_int64(ctx, n.cumulative_size);
      break;
    case kAllocCount:
      sqlite3_result_int64(ctx, n.alloc_count);
      break;
    case kCumulativeAllocCount:
      sqlite3_result_int64(ctx, n.cumulative_alloc_count);
      break;
    case kAllocSize:
      sqlite3_result_int64(ctx, n.alloc_size);
      break;
    case kCumulativeAllocSize:
      sqlite3_result_int64(ctx, n.cumulative_alloc_size);
      break;
    case kParentId:
      if (n.parent)
        sqlite3_result_int64(ctx, *n.parent);
      else
        sqlite3_result_null(ctx);
      break;
    default:
      sqlite3_result_null(ctx);
      break;  // source_file, line_number
  }
  return SQLITE_OK;
}

int Rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  *out = static_cast<Cursor*>(cur)->row;
  return SQLITE_OK;
}

sqlite3_module MakeModule() {
  sqlite3_module m{};
  m.iVersion = 0;
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

Status RegisterFlamegraphFunction(sqlite3* db, TraceStorage* storage) {
  if (sqlite3_create_module_v2(db, "experimental_flamegraph", &kModule, storage, nullptr) !=
      SQLITE_OK)
    return ErrorStatus(std::string("cannot register experimental_flamegraph: ") +
                       sqlite3_errmsg(db));
  return Status::Ok();
}

}  // namespace fathom
