#include "core/heap/heap_duplicates.h"

#include <algorithm>
#include <tuple>

#include "core/heap/heap_queries.h"
#include "core/heap/heap_strings.h"
#include "core/storage/trace_storage.h"

namespace fathom::heap {
namespace {

struct Copy {
  DuplicateKind kind;
  uint32_t cls;
  int64_t bytes;
  uint64_t hash;
  uint32_t object;
  auto Key() const { return std::make_tuple(kind, cls, bytes, hash); }
};

}  // namespace

std::vector<uint8_t> DerivesFrom(const TraceStorage& s,
                                 std::initializer_list<std::string_view> names) {
  const auto& classes = s.profile.heap_graph_class;
  std::vector<uint8_t> out(classes.row_count(), 0);
  for (uint32_t c = 0; c < classes.row_count(); ++c) {
    uint32_t k = c;
    for (int depth = 0; depth < 64; ++depth) {
      std::string_view n = s.GetString(classes.name[k]);
      if (std::find(names.begin(), names.end(), n) != names.end()) {
        out[c] = 1;
        break;
      }
      auto super = classes.resolved_superclass_id.Get(k);
      if (!super || *super >= classes.row_count()) break;
      k = *super;
    }
  }
  return out;
}

uint32_t FieldTarget(const TraceStorage& s, const HeapAnalysis& a, uint32_t v, StringId field) {
  const auto& objects = s.profile.heap_graph_object;
  const auto& refs = s.profile.heap_graph_reference;
  auto set = objects.reference_set_id.Get(a.rows[v]);
  if (!set || field == kNullStringId) return kNoObject;
  for (uint32_t r = *set; r < refs.row_count() && refs.reference_set_id[r] == *set; ++r) {
    if (refs.field_name[r] != field) continue;
    auto owned = refs.owned_id.Get(r);
    return owned ? a.LocalOfRow(*owned) : kNoObject;
  }
  return kNoObject;
}

std::vector<DuplicateGroup> FindDuplicates(const TraceStorage& s, const HeapAnalysis& a,
                                           const HeapContents* hashed) {
  std::vector<DuplicateGroup> out;
  if (!hashed || hashed->hashed_rows.empty()) return out;
  const HeapContents& contents = *hashed;
  const auto strings = DerivesFrom(s, {"java.lang.String"});
  const auto bitmaps = DerivesFrom(s, {"android.graphics.Bitmap"});
  const StringId value = s.strings.Find("java.lang.String.value");
  const StringId buffer = s.strings.Find("android.graphics.Bitmap.mBuffer");
  std::vector<Copy> copies;
  std::vector<uint8_t> owned(a.size(), 0);  // arrays counted with their string or bitmap
  for (uint32_t v = 0; v < a.size(); ++v) {
    if (!a.reachable(v) || a.cls[v] >= strings.size()) continue;
    const bool is_string = strings[a.cls[v]], is_bitmap = bitmaps[a.cls[v]];
    if (!is_string && !is_bitmap) continue;
    uint32_t array = FieldTarget(s, a, v, is_string ? value : buffer);
    if (array == kNoObject) continue;
    uint64_t hash = contents.HashOf(a.rows[array]);
    if (!hash) continue;
    owned[array] = 1;
    copies.push_back({is_string ? DuplicateKind::kString : DuplicateKind::kBitmap, a.cls[v],
                      a.self_size[v] + a.self_size[array], hash, v});
  }
  for (size_t k = 0; k < contents.hashed_rows.size(); ++k) {
    uint32_t v = a.LocalOfRow(contents.hashed_rows[k]);
    if (v == kNoObject || !a.reachable(v) || owned[v]) continue;
    copies.push_back(
        {DuplicateKind::kPrimitiveArray, a.cls[v], a.self_size[v], contents.hashes[k], v});
  }
  std::sort(copies.begin(), copies.end(), [](const Copy& x, const Copy& y) {
    return std::make_tuple(x.Key(), x.object) < std::make_tuple(y.Key(), y.object);
  });
  for (size_t i = 0; i < copies.size();) {
    size_t j = i + 1;
    while (j < copies.size() && copies[j].Key() == copies[i].Key()) ++j;
    if (j - i > 1) {
      DuplicateGroup g;
      g.kind = copies[i].kind, g.cls = copies[i].cls, g.bytes_each = copies[i].bytes;
      g.wasted = g.bytes_each * static_cast<int64_t>(j - i - 1);
      for (size_t k = i; k < j; ++k) g.objects.push_back(copies[k].object);
      out.push_back(std::move(g));
    }
    i = j;
  }
  std::stable_sort(out.begin(), out.end(), [](const DuplicateGroup& x, const DuplicateGroup& y) {
    return x.wasted > y.wasted;
  });
  // What the copies hold, read back for the groups only (one read each).
  for (DuplicateGroup& g : out) {
    if (g.kind == DuplicateKind::kString) {
      auto text = StringText(s, a, contents, g.objects[0], 200);
      g.text = text.ok() ? *text : "(" + text.status().message() + ")";
    } else if (g.kind == DuplicateKind::kBitmap) {
      if (const BitmapFields* b = contents.BitmapOf(a.rows[g.objects[0]]))
        g.text = std::to_string(b->width) + " x " + std::to_string(b->height) + " px";
    }
  }
  return out;
}

std::vector<LeakRow> FindLeaks(const TraceStorage& s, const HeapAnalysis& a,
                               const HeapContents* contents) {
  std::vector<LeakRow> out;
  for (uint32_t row : contents ? contents->finished_activity_rows : std::vector<uint32_t>{}) {
    uint32_t v = a.LocalOfRow(row);
    if (v != kNoObject && a.reachable(v)) out.push_back({v, "Activity destroyed or finished"});
  }
  const auto fragments = DerivesFrom(s, {"androidx.fragment.app.Fragment", "android.app.Fragment",
                                         "android.support.v4.app.Fragment"});
  for (uint32_t v = 0; v < a.size(); ++v) {
    if (!a.reachable(v) || a.cls[v] >= fragments.size() || !fragments[a.cls[v]]) continue;
    // The field is declared by whichever Fragment base the class derives from.
    bool has_manager = false;
    for (const char* base : {"androidx.fragment.app.Fragment", "android.app.Fragment",
                             "android.support.v4.app.Fragment"}) {
      StringId f = s.strings.Find(std::string(base) + ".mFragmentManager");
      has_manager |= f != kNullStringId && FieldTarget(s, a, v, f) != kNoObject;
    }
    if (!has_manager) out.push_back({v, "Fragment without FragmentManager"});
  }
  std::sort(out.begin(), out.end(), [&](const LeakRow& x, const LeakRow& y) {
    return a.retained_size[x.object] > a.retained_size[y.object];
  });
  return out;
}

}  // namespace fathom::heap
