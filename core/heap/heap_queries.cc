#include "core/heap/heap_queries.h"

#include <algorithm>
#include <unordered_map>

#include "core/storage/trace_storage.h"

namespace fathom::heap {
namespace {

// Per-group retained size without double counting: a depth-first walk of
// the dominator tree keeps, per group, how many instances of the group are
// on the current path; an instance adds its retained size only when none is.
void AddRetained(const HeapAnalysis& a, const std::vector<uint32_t>& group_of_class,
                 std::vector<HistogramRow>& rows) {
  std::vector<uint32_t> on_path(rows.size(), 0);
  struct Frame {
    uint32_t v, next;
  };
  std::vector<Frame> stack;
  auto group = [&](uint32_t v) {
    return a.cls[v] < group_of_class.size() ? group_of_class[a.cls[v]] : kNoObject;
  };
  auto enter = [&](uint32_t v) {
    const uint32_t gi = group(v);
    if (gi != kNoObject && on_path[gi]++ == 0) rows[gi].retained_size += a.retained_size[v];
    stack.push_back({v, 0});
  };
  for (uint32_t top : a.Children(kVirtualRoot)) {
    enter(top);
    while (!stack.empty()) {
      Frame& f = stack.back();
      auto kids = a.Children(f.v);
      if (f.next < kids.size()) {
        enter(kids[f.next++]);  // invalidates f
        continue;
      }
      const uint32_t gi = group(f.v);
      if (gi != kNoObject) --on_path[gi];
      stack.pop_back();
    }
  }
}

}  // namespace

std::string ClassName(const TraceStorage& s, uint32_t class_row) {
  const auto& classes = s.profile.heap_graph_class;
  if (class_row >= classes.row_count()) return "[unknown class]";
  StringId n = classes.deobfuscated_name[class_row] != kNullStringId
                   ? classes.deobfuscated_name[class_row]
                   : classes.name[class_row];
  return std::string(s.GetString(n));
}

std::string PackageOf(std::string_view name) {
  constexpr std::string_view kClassOf = "java.lang.Class<";
  if (name.starts_with(kClassOf) && name.ends_with(">"))
    name = name.substr(kClassOf.size(), name.size() - kClassOf.size() - 1);
  while (name.ends_with("[]")) name.remove_suffix(2);
  size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? std::string("(default package)")
                                       : std::string(name.substr(0, dot));
}

std::string ObjectLabel(const TraceStorage& s, const HeapAnalysis& a, uint32_t v) {
  if (v >= a.size()) return "(outside the dump)";
  return ClassName(s, a.cls[v]) + " @" + std::to_string(a.rows[v]);
}

std::vector<HistogramRow> ClassHistogram(const TraceStorage& s, const HeapAnalysis& a,
                                         Grouping grouping) {
  const uint32_t class_rows = s.profile.heap_graph_class.row_count();
  std::vector<uint32_t> group_of_class(class_rows, kNoObject);
  std::vector<HistogramRow> rows;
  std::unordered_map<std::string, uint32_t> by_name;
  for (uint32_t v = 0; v < a.size(); ++v) {
    const uint32_t c = a.cls[v];
    if (c >= class_rows || group_of_class[c] != kNoObject) continue;
    std::string name = ClassName(s, c);
    if (grouping == Grouping::kPackage) name = PackageOf(name);
    auto [it, added] = by_name.try_emplace(name, static_cast<uint32_t>(rows.size()));
    if (added) rows.push_back(HistogramRow{std::move(name)});
    rows[it->second].classes.push_back(c);
    group_of_class[c] = it->second;
  }
  for (uint32_t v = 0; v < a.size(); ++v) {
    const uint32_t c = a.cls[v];
    if (c >= class_rows) continue;
    HistogramRow& r = rows[group_of_class[c]];
    if (!a.reachable(v)) {
      ++r.unreachable_count;
      continue;
    }
    ++r.count;
    r.shallow_size += a.self_size[v];
  }
  AddRetained(a, group_of_class, rows);
  std::erase_if(rows, [](const HistogramRow& r) { return r.count == 0 && !r.unreachable_count; });
  std::sort(rows.begin(), rows.end(), [](const HistogramRow& x, const HistogramRow& y) {
    return x.retained_size != y.retained_size ? x.retained_size > y.retained_size : x.name < y.name;
  });
  return rows;
}

std::vector<uint32_t> Instances(const HeapAnalysis& a, const std::vector<uint32_t>& classes) {
  uint32_t max_class = 0;
  for (uint32_t c : classes) max_class = std::max(max_class, c);
  std::vector<uint8_t> wanted(max_class + 1, 0);
  for (uint32_t c : classes) wanted[c] = 1;
  std::vector<uint32_t> out;
  for (uint32_t v = 0; v < a.size(); ++v)
    if (a.cls[v] <= max_class && wanted[a.cls[v]] && a.reachable(v)) out.push_back(v);
  std::sort(out.begin(), out.end(), [&](uint32_t x, uint32_t y) {
    return a.retained_size[x] != a.retained_size[y] ? a.retained_size[x] > a.retained_size[y]
                                                    : x < y;
  });
  return out;
}

ObjectDetails DescribeObject(const TraceStorage& s, const HeapAnalysis& a, uint32_t v) {
  ObjectDetails d;
  if (v >= a.size()) return d;
  d.object = v;
  const auto& objects = s.profile.heap_graph_object;
  const auto& refs = s.profile.heap_graph_reference;
  const uint32_t row = a.rows[v];
  if (objects.root_type[row] != kNullStringId) d.root_type = s.GetString(objects.root_type[row]);
  if (objects.heap_type[row] != kNullStringId) d.heap = s.GetString(objects.heap_type[row]);
  auto field = [&](uint32_t r) {
    StringId n = refs.deobfuscated_field_name[r] != kNullStringId ? refs.deobfuscated_field_name[r]
                                                                  : refs.field_name[r];
    return std::string(s.GetString(n));
  };
  if (auto set = objects.reference_set_id.Get(row)) {
    for (uint32_t r = *set; r < refs.row_count() && refs.reference_set_id[r] == *set; ++r) {
      auto owned = refs.owned_id.Get(r);
      d.fields.push_back({field(r), owned ? a.LocalOfRow(*owned) : kNoObject});
    }
  }
  for (uint32_t r : a.Referrers(v))
    d.referrers.push_back({field(r), a.LocalOfRow(refs.owner_id[r])});
  if (a.reachable(v)) {
    for (uint32_t x = v; x != kNoObject; x = a.bfs_parent[x])
      d.path.push_back({a.bfs_ref[x] == kNoObject ? "" : field(a.bfs_ref[x]), x});
    std::reverse(d.path.begin(), d.path.end());
  }
  return d;
}

}  // namespace fathom::heap
