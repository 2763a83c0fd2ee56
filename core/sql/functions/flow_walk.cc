#include "core/sql/functions/flow_walk.h"

#include <deque>
#include <memory>
#include <string>
#include <string_view>

#include "core/sql/functions/table_ptr.h"

namespace fathom {
namespace {

// Flow ids by the slice they leave and by the slice they enter.
struct FlowIndex {
  std::vector<std::vector<uint32_t>> out, in;
  explicit FlowIndex(const TraceStorage& s) : out(s.slice.row_count()), in(s.slice.row_count()) {
    const FlowTable& f = s.flow;
    for (uint32_t row = 0; row < f.row_count(); ++row) {
      if (f.slice_out[row] < out.size()) out[f.slice_out[row]].push_back(row);
      if (f.slice_in[row] < in.size()) in[f.slice_in[row]].push_back(row);
    }
  }
};

// The slice and its descendants (following) or ancestors (preceding).
std::vector<uint32_t> Family(const SliceTable& slices,
                             const std::vector<std::vector<uint32_t>>& children, uint32_t slice,
                             FlowWalk mode) {
  std::vector<uint32_t> out{slice};
  if (mode == FlowWalk::kPreceding) {
    uint32_t child = slice;
    for (auto p = slices.parent_id.Get(child); p && *p < child;
         child = *p, p = slices.parent_id.Get(child))
      out.push_back(*p);
  } else if (mode == FlowWalk::kFollowing) {
    for (size_t i = 0; i < out.size(); ++i)
      for (uint32_t c : children[out[i]]) out.push_back(c);
  }
  return out;
}

}  // namespace

std::vector<uint32_t> WalkFlows(const TraceStorage& storage, uint32_t slice, FlowWalk mode) {
  const SliceTable& slices = storage.slice;
  const FlowTable& flows = storage.flow;
  const FlowIndex index(storage);
  std::vector<std::vector<uint32_t>> children;
  if (mode == FlowWalk::kFollowing) {
    children.resize(slices.row_count());
    for (uint32_t row = 0; row < slices.row_count(); ++row)
      if (auto p = slices.parent_id.Get(row); p && *p < row) children[*p].push_back(row);
  }
  std::vector<uint32_t> result;
  std::vector<char> flow_seen(flows.row_count(), 0);
  // Directly connected walks go one way from each reached slice: +1 forwards, -1 backwards.
  std::vector<char> seen_fwd(slices.row_count(), 0), seen_back(slices.row_count(), 0);
  std::deque<std::pair<uint32_t, int>> queue;
  const bool both = mode == FlowWalk::kDirectlyConnected;
  if (mode != FlowWalk::kPreceding) queue.emplace_back(slice, +1);
  if (mode != FlowWalk::kFollowing) queue.emplace_back(slice, -1);
  while (!queue.empty()) {
    auto [cur, dir] = queue.front();
    queue.pop_front();
    std::vector<char>& seen = dir > 0 ? seen_fwd : seen_back;
    if (seen[cur]) continue;
    seen[cur] = 1;
    const std::vector<uint32_t> family =
        both ? std::vector<uint32_t>{cur} : Family(slices, children, cur, mode);
    for (uint32_t s : family) {
      for (uint32_t f : dir > 0 ? index.out[s] : index.in[s]) {
        if (!flow_seen[f]) {
          flow_seen[f] = 1;
          result.push_back(f);
        }
        const uint32_t next = dir > 0 ? flows.slice_in[f] : flows.slice_out[f];
        if (next < slices.row_count()) queue.emplace_back(next, dir);
      }
    }
  }
  return result;
}

namespace {

void FlowWalkFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const auto* storage = static_cast<const TraceStorage*>(sqlite3_user_data(ctx));
  const std::string_view mode_name(reinterpret_cast<const char*>(sqlite3_value_text(argv[0])),
                                   static_cast<size_t>(sqlite3_value_bytes(argv[0])));
  FlowWalk mode;
  if (mode_name == "directly_connected") {
    mode = FlowWalk::kDirectlyConnected;
  } else if (mode_name == "following") {
    mode = FlowWalk::kFollowing;
  } else if (mode_name == "preceding") {
    mode = FlowWalk::kPreceding;
  } else {
    return sqlite3_result_error(ctx, "__intrinsic_flow_walk: unknown mode", -1);
  }
  auto table = std::make_unique<PtrTable>();
  table->names = {"flow_id", "pos"};
  const int type = sqlite3_value_type(argv[1]);
  if (type != SQLITE_NULL) {
    if (type != SQLITE_INTEGER)
      return sqlite3_result_error(ctx, "flow functions: slice id must be an integer", -1);
    const int64_t id = sqlite3_value_int64(argv[1]);
    if (id < 0 || id >= static_cast<int64_t>(storage->slice.row_count())) {
      const std::string msg = "invalid slice id " + std::to_string(id);
      return sqlite3_result_error(ctx, msg.c_str(), -1);
    }
    int64_t pos = 0;
    for (uint32_t f : WalkFlows(*storage, static_cast<uint32_t>(id), mode))
      table->rows.push_back({SqlCell::Int(f), SqlCell::Int(pos++)});
  }
  ResultPtrTable(ctx, std::move(table));
}

}  // namespace

Status RegisterFlowWalk(sqlite3* db, TraceStorage* storage) {
  if (sqlite3_create_function_v2(db, "__intrinsic_flow_walk", 2, SQLITE_UTF8, storage, FlowWalkFn,
                                 nullptr, nullptr, nullptr) != SQLITE_OK)
    return ErrorStatus("cannot register __intrinsic_flow_walk");
  return Status::Ok();
}

}  // namespace fathom
