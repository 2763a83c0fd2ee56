#include "core/import/hprof/hprof_writer.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/import/hprof/hprof_format.h"
#include "core/import/process_tracker.h"
#include "core/import/trace_context.h"

namespace fathom::hprof {
namespace {

constexpr uint32_t kNoRow = std::numeric_limits<uint32_t>::max();

// The kind upstream gives a class: a java.lang.ref subclass is known by the
// reference class it derives from; everything else has no known kind.
const char* ClassKind(const Dump& dump, uint64_t class_id) {
  size_t depth = 0;
  for (uint64_t c = class_id; c != 0 && depth < 1000; ++depth) {
    auto it = dump.classes.find(c);
    if (it == dump.classes.end()) break;
    const std::string& n = it->second.name;
    if (n == "java.lang.ref.WeakReference") return "KIND_WEAK_REFERENCE";
    if (n == "java.lang.ref.SoftReference") return "KIND_SOFT_REFERENCE";
    if (n == "java.lang.ref.PhantomReference") return "KIND_PHANTOM_REFERENCE";
    if (n == "java.lang.ref.FinalizerReference") return "KIND_FINALIZER_REFERENCE";
    c = it->second.super_id;
  }
  return "[unknown class kind]";
}

// Classes whose Reference.referent does not keep the referent alive.
bool IsWeakKind(const char* kind) {
  std::string_view k = kind;
  return k == "KIND_WEAK_REFERENCE" || k == "KIND_PHANTOM_REFERENCE" ||
         k == "KIND_FINALIZER_REFERENCE";
}

struct Writer {
  Dump& dump;
  TraceContext* ctx;
  TraceStorage* s;
  uint32_t upid = 0;
  int64_t ts = 0;
  uint32_t ref_base = 0;                             // first heap_graph_reference row of this dump
  std::unordered_map<uint64_t, uint32_t> class_row;  // class id -> heap_graph_class row
  std::unordered_map<uint64_t, bool> weak_class;     // class id -> referent is weak
  std::unordered_map<std::string, uint64_t> class_by_name;
  std::vector<std::pair<uint64_t, uint32_t>> by_id;  // (object id, object index), sorted
  std::vector<uint32_t> row_of_index;                // object index -> row, or kNoRow
  std::vector<uint32_t> index_of_row;
  std::vector<StringId> type_name_of_row;  // the name a reference to the row reports

  void WriteClasses();
  void WriteObjects();
  void WriteReferences();
  void MarkReachable();
  uint32_t RowOf(uint64_t id) const {
    auto it = std::lower_bound(by_id.begin(), by_id.end(), std::make_pair(id, uint32_t{0}));
    return it != by_id.end() && it->first == id ? row_of_index[it->second] : kNoRow;
  }
};

void Writer::WriteClasses() {
  auto& classes = s->profile.heap_graph_class;
  std::vector<std::pair<uint32_t, uint64_t>> order;
  for (const auto& [id, c] : dump.classes) order.emplace_back(c.order, id);
  std::sort(order.begin(), order.end());
  for (const auto& [ord, id] : order) {
    const ClassDef& c = dump.classes[id];
    const char* kind = ClassKind(dump, id);
    uint32_t row = classes.Insert(s->Intern(c.name), kNullStringId, s->Intern(kind));
    classes.classloader_id.Set(row, 0);
    class_row[id] = row;
    weak_class[id] = IsWeakKind(kind);
    class_by_name.try_emplace(c.name, id);
  }
  for (const auto& [ord, id] : order) {
    auto super = class_row.find(dump.classes[id].super_id);
    if (dump.classes[id].super_id && super != class_row.end()) {
      classes.superclass_id.Set(class_row[id], super->second);
      classes.resolved_superclass_id.Set(class_row[id], super->second);
    }
  }
}

void Writer::WriteObjects() {
  auto& objects = s->profile.heap_graph_object;
  auto& classes = s->profile.heap_graph_class;
  const auto& objs = dump.objects;
  std::vector<uint32_t> winner = RecordsById(dump, &by_id);

  uint32_t class_size = 0;
  if (auto it = class_by_name.find("java.lang.Class"); it != class_by_name.end())
    class_size = dump.classes[it->second].instance_size;
  StringId unknown_kind = s->Intern("[unknown class kind]");
  std::vector<StringId> heap_names;
  for (const std::string& h : dump.heaps) heap_names.push_back(s->Intern(h));
  row_of_index.assign(objs.size(), kNoRow);
  for (uint32_t first = 0; first < objs.size(); ++first) {
    if (winner[first] == kNoRow) continue;
    const ObjectRec& o = objs[winner[first]];
    uint32_t type = kNoRow;
    uint64_t size = 0;
    StringId type_name = kNullStringId;
    auto cls = dump.classes.find(o.kind == ObjectKind::kPrimitiveArray
                                     ? (class_by_name.count(PrimitiveArrayName(o.elem_type))
                                            ? class_by_name[PrimitiveArrayName(o.elem_type)]
                                            : 0)
                                     : o.class_id);
    if (cls == dump.classes.end()) {
      s->stats.Increment(o.kind == ObjectKind::kPrimitiveArray ? Stat::kHprofPrimitiveArrayErrors
                                                               : Stat::kHprofClassErrors);
      continue;
    }
    const ClassDef& c = cls->second;
    type_name = s->Intern(c.name);
    switch (o.kind) {
      case ObjectKind::kClass:
        type = classes.Insert(s->Intern("java.lang.Class<" + c.name + ">"), kNullStringId,
                              unknown_kind);
        classes.classloader_id.Set(type, 0);
        size = class_size + c.static_bytes;
        break;
      case ObjectKind::kInstance:
        type = class_row[cls->first];
        size = c.dumped ? c.instance_size : o.size;
        break;
      case ObjectKind::kObjectArray:
        type = class_row[cls->first];
        size = c.instance_size + o.size * dump.id_size;
        break;
      case ObjectKind::kPrimitiveArray:
        type = class_row[cls->first];
        size = c.instance_size + o.size * TypeSize(o.elem_type, dump.id_size);
        break;
    }
    uint32_t row = objects.Insert(upid, ts);
    objects.type_id.Set(row, type);
    objects.self_size.Set(row, static_cast<int64_t>(size));
    objects.heap_type.Set(row, heap_names[o.heap]);
    row_of_index[first] = row;
    index_of_row.push_back(winner[first]);
    type_name_of_row.push_back(type_name);
  }
}

void Writer::WriteReferences() {
  auto& objects = s->profile.heap_graph_object;
  auto& refs = s->profile.heap_graph_reference;
  std::vector<StringId> labels;
  for (const std::string& l : dump.labels) labels.push_back(s->Intern(l));
  int64_t count = 0;
  char buf[16];
  ref_base = refs.row_count();
  for (uint32_t row = 0; row < index_of_row.size(); ++row) {
    const ObjectRec& o = dump.objects[index_of_row[row]];
    std::optional<uint32_t> set;
    for (uint32_t k = 0; k < o.ref_count; ++k) {
      const Ref& r = dump.refs[o.first_ref + k];
      uint32_t target = RowOf(r.target);
      if (target == kNoRow) continue;  // an id no record defines
      StringId name;
      if (r.label & kArrayIndexBit) {
        snprintf(buf, sizeof(buf), "[%u]", r.label & ~kArrayIndexBit);
        name = s->Intern(buf);
      } else {
        name = labels[r.label];
      }
      uint32_t ref_row = refs.row_count();
      if (!set) set = ref_row;
      refs.Insert(*set, row, target, name, type_name_of_row[target]);
      ++count;
    }
    if (set) objects.reference_set_id.Set(row, *set);
  }
  s->stats.Set(Stat::kHprofReferences, count);
}

void Writer::MarkReachable() {
  auto& objects = s->profile.heap_graph_object;
  auto& refs = s->profile.heap_graph_reference;
  const uint32_t first_object = objects.row_count() - static_cast<uint32_t>(index_of_row.size());
  for (const auto& [id, tag] : dump.roots) {
    uint32_t row = RowOf(id);
    if (row != kNoRow) objects.root_type.Set(row, s->Intern(RootTypeName(tag)));
  }
  // Each row's references are consecutive rows of the reference table.
  std::vector<uint32_t> first_ref(index_of_row.size() + 1, 0);
  for (uint32_t i = ref_base; i < refs.row_count(); ++i)
    ++first_ref[refs.owner_id[i] - first_object + 1];
  for (size_t i = 1; i < first_ref.size(); ++i) first_ref[i] += first_ref[i - 1];
  StringId referent = s->Intern("java.lang.ref.Reference.referent");
  std::vector<uint32_t> queue;
  for (uint32_t r = 0; r < index_of_row.size(); ++r) {
    if (objects.root_type[first_object + r] == kNullStringId) continue;
    objects.reachable.Set(first_object + r, 1);
    objects.root_distance.Set(first_object + r, 0);
    queue.push_back(first_object + r);
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    uint32_t row = queue[head];
    const ObjectRec& o = dump.objects[index_of_row[row - first_object]];
    bool weak = o.kind == ObjectKind::kInstance && weak_class[o.class_id];
    int32_t next = objects.root_distance[row] + 1;
    for (uint32_t i = first_ref[row - first_object]; i < first_ref[row - first_object + 1]; ++i) {
      uint32_t ref = ref_base + i;
      if (weak && refs.field_name[ref] == referent) continue;
      auto owned = refs.owned_id.Get(ref);
      if (!owned || objects.reachable[*owned]) continue;
      objects.reachable.Set(*owned, 1);
      objects.root_distance.Set(*owned, next);
      queue.push_back(*owned);
    }
  }
}

}  // namespace

std::vector<uint32_t> RecordsById(const Dump& dump,
                                  std::vector<std::pair<uint64_t, uint32_t>>* by_id) {
  const auto& objs = dump.objects;
  // An id written twice keeps its last record (at its first position).
  std::vector<std::pair<uint64_t, uint32_t>> sorted;
  sorted.reserve(objs.size());
  for (uint32_t i = 0; i < objs.size(); ++i) sorted.emplace_back(objs[i].id, i);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<uint32_t> winner(objs.size(), kNoRow);  // first index -> record to use
  std::vector<std::pair<uint64_t, uint32_t>> unique;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1].first == sorted[i].first) ++j;
    winner[sorted[i].second] = sorted[j].second;
    unique.push_back(sorted[i]);
    i = j + 1;
  }
  if (by_id) *by_id = std::move(unique);
  return winner;
}

size_t WriteTables(Dump& dump, TraceContext* ctx) {
  Writer w{dump, ctx, ctx->storage.get()};
  TraceStorage* s = w.s;
  s->stats.Set(Stat::kHprofStrings, dump.string_count);
  s->stats.Set(Stat::kHprofClasses, dump.class_count);
  s->stats.Set(Stat::kHprofHeapDumps, dump.heap_dump_count);
  s->stats.Set(Stat::kHprofInstances, dump.instance_count);
  s->stats.Set(Stat::kHprofObjectArrays, dump.object_array_count);
  s->stats.Set(Stat::kHprofPrimitiveArrays, dump.primitive_array_count);
  s->stats.Set(Stat::kHprofRoots, dump.root_count);
  s->stats.Set(Stat::kHprofSegmentOvershoots, dump.segment_overshoots);
  if (dump.class_errors) s->stats.Increment(Stat::kHprofClassErrors, dump.class_errors);
  // Upstream makes the process even for a dump without objects.
  w.upid = ctx->process_tracker->GetOrCreateProcess(0);
  w.ts = dump.timestamp_ms;  // milliseconds, reported as they are (as upstream)
  if (dump.classes.empty() || dump.objects.empty()) return 0;
  w.WriteClasses();
  w.WriteObjects();
  w.WriteReferences();
  w.MarkReachable();
  if (!w.index_of_row.empty()) s->UpdateBounds(w.ts);
  return w.index_of_row.size();
}

}  // namespace fathom::hprof
