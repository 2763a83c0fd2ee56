#include "core/import/heap_graph_parser.h"

#include <algorithm>
#include <deque>
#include <set>

#include "core/import/frame_packages.h"
#include "core/import/heap_graph_native_size.h"
#include "core/import/process_tracker.h"
#include "core/import/trace_context.h"
#include "perfetto/trace/profiling/deobfuscation.pb.h"
#include "perfetto/trace/profiling/heap_graph.pb.h"
#include "perfetto/trace/profiling/profile_common.pb.h"

namespace fathom {

using perfetto::protos::DeobfuscationMapping;
using perfetto::protos::HeapGraph;
using perfetto::protos::HeapGraphObject;
using perfetto::protos::HeapGraphRoot;
using perfetto::protos::HeapGraphType;
using perfetto::protos::InternedString;
using perfetto::protos::ObfuscatedClass;
using perfetto::protos::ObfuscatedMember;

namespace {

// Appends every value of a repeated uint64 field occurrence, packed or not.
void AppendRepeated(const proto::Field& f, std::vector<uint64_t>* out) {
  if (f.type == proto::WireType::kLengthDelimited) {
    proto::PackedVarints pv(f.bytes);
    for (uint64_t v; pv.Next(&v);) out->push_back(v);
  } else {
    out->push_back(f.as_uint64());
  }
}

std::pair<uint64_t, std::string_view> DecodeInternedString(proto::Bytes b) {
  uint64_t iid = 0;
  std::string_view str;
  proto::Decoder d(b);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == InternedString::kIidFieldNumber) iid = f.as_uint64();
    if (f.id == InternedString::kStrFieldNumber) str = f.as_string();
  }
  return {iid, str};
}

const char* RootTypeName(int t) {
  static const char* kNames[] = {
      "ROOT_UNKNOWN",           "ROOT_JNI_GLOBAL",      "ROOT_JNI_LOCAL",    "ROOT_JAVA_FRAME",
      "ROOT_NATIVE_STACK",      "ROOT_STICKY_CLASS",    "ROOT_THREAD_BLOCK", "ROOT_MONITOR_USED",
      "ROOT_THREAD_OBJECT",     "ROOT_INTERNED_STRING", "ROOT_FINALIZING",   "ROOT_DEBUGGER",
      "ROOT_REFERENCE_CLEANUP", "ROOT_VM_INTERNAL",     "ROOT_JNI_MONITOR"};
  return t >= 0 && t < static_cast<int>(std::size(kNames)) ? kNames[t] : "ROOT_UNKNOWN";
}

const char* HeapTypeName(int t) {
  switch (t) {
    case HeapGraphObject::HEAP_TYPE_APP:
      return "HEAP_TYPE_APP";
    case HeapGraphObject::HEAP_TYPE_ZYGOTE:
      return "HEAP_TYPE_ZYGOTE";
    case HeapGraphObject::HEAP_TYPE_BOOT_IMAGE:
      return "HEAP_TYPE_BOOT_IMAGE";
    default:
      return nullptr;
  }
}

const char* ClassKindName(int k) {
  static const char* kNames[] = {"KIND_UNKNOWN",
                                 "KIND_NORMAL",
                                 "KIND_NOREFERENCES",
                                 "KIND_STRING",
                                 "KIND_ARRAY",
                                 "KIND_CLASS",
                                 "KIND_CLASSLOADER",
                                 "KIND_DEXCACHE",
                                 "KIND_SOFT_REFERENCE",
                                 "KIND_WEAK_REFERENCE",
                                 "KIND_FINALIZER_REFERENCE",
                                 "KIND_PHANTOM_REFERENCE"};
  return k >= 0 && k < static_cast<int>(std::size(kNames)) ? kNames[k] : "KIND_UNKNOWN";
}

// "java.lang.Class<a[][]>" -> {"a", arrays=2, is_class=true}.
struct NormalizedType {
  std::string_view name;
  size_t arrays = 0;
  bool is_class = false;
};
NormalizedType Normalize(std::string_view t) {
  NormalizedType n;
  constexpr std::string_view kClass = "java.lang.Class<";
  if (t.size() > kClass.size() && t.substr(0, kClass.size()) == kClass && t.back() == '>') {
    t = t.substr(kClass.size(), t.size() - kClass.size() - 1);
    n.is_class = true;
  }
  while (t.size() >= 2 && t.substr(t.size() - 2) == "[]") {
    t.remove_suffix(2);
    ++n.arrays;
  }
  n.name = t;
  return n;
}
std::string Denormalize(const NormalizedType& n, std::string_view deobfuscated) {
  std::string r(deobfuscated);
  for (size_t i = 0; i < n.arrays; ++i) r += "[]";
  if (n.is_class) r = "java.lang.Class<" + r + ">";
  return r;
}

}  // namespace

void HeapGraphParser::ParseHeapGraph(uint32_t sequence_id, int64_t ts, proto::Bytes payload) {
  TraceStorage* s = ctx_->storage.get();
  Dump& dump = dumps_[sequence_id];
  int64_t pid = 0;
  bool continued = false;
  std::optional<uint64_t> index;
  std::vector<proto::Bytes> objects, roots, types, field_names, locations;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case HeapGraph::kPidFieldNumber:
        pid = f.as_int32();
        break;
      case HeapGraph::kObjectsFieldNumber:
        objects.push_back(f.bytes);
        break;
      case HeapGraph::kFieldNamesFieldNumber:
        field_names.push_back(f.bytes);
        break;
      case HeapGraph::kContinuedFieldNumber:
        continued = f.as_bool();
        break;
      case HeapGraph::kIndexFieldNumber:
        index = f.as_uint64();
        break;
      case HeapGraph::kRootsFieldNumber:
        roots.push_back(f.bytes);
        break;
      case HeapGraph::kLocationNamesFieldNumber:
        locations.push_back(f.bytes);
        break;
      case HeapGraph::kTypesFieldNumber:
        types.push_back(f.bytes);
        break;
      case HeapGraph::kHeapBytesAllocatedFieldNumber:
        dump.heap_size = f.as_int64();
        break;
    }
  }
  if (!dump.active) {
    // Continuation packets may lack a timestamp: the dump time is the first's.
    dump.active = true;
    dump.upid = ctx_->process_tracker->GetOrCreateProcess(pid);
    dump.ts = ts;
  }
  if (index) {
    if (dump.prev_index ? *index != *dump.prev_index + 1 : *index != 0)
      s->stats.IncrementIndexed(Stat::kHeapGraphMissingPacket, dump.upid);
    dump.prev_index = index;
  }

  // Objects first, then the rest, whatever the wire order: a field name
  // interned by this packet names the references its objects just made.
  uint64_t prev_id = 0;  // id_delta is relative to the previous object of the packet
  for (proto::Bytes b : objects) {
    Object o{};
    uint64_t base = 0;
    proto::Decoder od(b);
    for (proto::Field f = od.Next(); f.valid(); f = od.Next()) {
      switch (f.id) {
        case HeapGraphObject::kIdFieldNumber:
          o.id = f.as_uint64();
          break;
        case HeapGraphObject::kIdDeltaFieldNumber:
          o.id = prev_id + f.as_uint64();
          break;
        case HeapGraphObject::kTypeIdFieldNumber:
          o.type_id = f.as_uint64();
          break;
        case HeapGraphObject::kSelfSizeFieldNumber:
          o.self_size = f.as_uint64();
          break;
        case HeapGraphObject::kReferenceFieldIdFieldNumber:
          AppendRepeated(f, &o.field_ids);
          break;
        case HeapGraphObject::kReferenceObjectIdFieldNumber:
          AppendRepeated(f, &o.referred_ids);
          break;
        case HeapGraphObject::kReferenceFieldIdBaseFieldNumber:
          base = f.as_uint64();
          break;
        case HeapGraphObject::kNativeAllocationRegistrySizeFieldFieldNumber:
          o.native_size = f.as_int64();
          break;
        case HeapGraphObject::kHeapTypeDeltaFieldNumber:
          dump.current_heap_type = f.as_int32();
          break;
        case HeapGraphObject::kRuntimeInternalObjectIdFieldNumber:
          AppendRepeated(f, &o.runtime_internal_ids);
          break;
      }
    }
    if (base)
      for (uint64_t& r : o.referred_ids)
        if (r) r += base;
    prev_id = o.id;
    AddObject(dump, o);
  }
  for (proto::Bytes b : roots) {
    int type = 0;
    std::vector<uint64_t> ids;
    proto::Decoder rd(b);
    for (proto::Field f = rd.Next(); f.valid(); f = rd.Next()) {
      if (f.id == HeapGraphRoot::kRootTypeFieldNumber) type = f.as_int32();
      if (f.id == HeapGraphRoot::kObjectIdsFieldNumber) AppendRepeated(f, &ids);
    }
    dump.roots.emplace_back(type, std::move(ids));
  }
  for (proto::Bytes b : types) {
    Type t;
    uint64_t id = 0;
    proto::Decoder td(b);
    for (proto::Field f = td.Next(); f.valid(); f = td.Next()) {
      switch (f.id) {
        case HeapGraphType::kIdFieldNumber:
          id = f.as_uint64();
          break;
        case HeapGraphType::kLocationIdFieldNumber:
          t.location_id = f.as_uint64();
          break;
        case HeapGraphType::kClassNameFieldNumber:
          t.name = std::string(f.as_string());
          break;
        case HeapGraphType::kObjectSizeFieldNumber:
          t.object_size = f.as_uint64();
          break;
        case HeapGraphType::kSuperclassIdFieldNumber:
          t.superclass_id = f.as_uint64();
          break;
        case HeapGraphType::kReferenceFieldIdFieldNumber:
          AppendRepeated(f, &t.field_ids);
          break;
        case HeapGraphType::kKindFieldNumber:
          t.kind = f.as_int32();
          break;
        case HeapGraphType::kClassloaderIdFieldNumber:
          t.classloader_id = f.as_uint64();
          break;
      }
    }
    dump.types[id] = std::move(t);
  }
  for (proto::Bytes b : field_names) {
    auto [iid, str] = DecodeInternedString(b);
    InternFieldName(dump, iid, str);
  }
  for (proto::Bytes b : locations) {
    auto [iid, str] = DecodeInternedString(b);
    dump.location_names[iid] = std::string(str);
  }
  if (!continued) {
    Finalize(dump);
    dumps_.erase(sequence_id);
  }
}

// An object id's row, made on first sight. A referent the dump never defines
// keeps self_size -1 and type_id 0, as upstream's placeholder.
uint32_t HeapGraphParser::ObjectRow(Dump& dump, uint64_t id) {
  auto [it, inserted] = dump.object_rows.try_emplace(id, 0);
  if (!inserted) return it->second;
  auto& objects = ctx_->storage->profile.heap_graph_object;
  it->second = objects.Insert(dump.upid, dump.ts);
  objects.self_size.Set(it->second, -1);
  dump.rows.push_back(it->second);
  return it->second;
}

// A type id's class row, made when an object first names it; its name, kind
// and location are filled when the dump ends (NULL if never defined).
uint32_t HeapGraphParser::ClassRow(Dump& dump, uint64_t type_id) {
  auto [it, inserted] = dump.class_rows.try_emplace(type_id, 0);
  if (inserted)
    it->second =
        ctx_->storage->profile.heap_graph_class.Insert(kNullStringId, kNullStringId, kNullStringId);
  return it->second;
}

void HeapGraphParser::AddObject(Dump& dump, const Object& o) {
  TraceStorage* s = ctx_->storage.get();
  auto& objects = s->profile.heap_graph_object;
  auto& refs = s->profile.heap_graph_reference;
  const uint32_t row = ObjectRow(dump, o.id);
  objects.type_id.Set(row, ClassRow(dump, o.type_id));
  objects.self_size.Set(row, static_cast<int64_t>(o.self_size));
  if (o.native_size) dump.registry_sizes[row] = o.native_size;
  if (const char* heap = HeapTypeName(dump.current_heap_type))
    objects.heap_type.Set(row, s->Intern(heap));
  dump.defined.push_back({row, o.type_id, o.self_size != 0, dump.current_heap_type});

  if (o.referred_ids.empty() && o.runtime_internal_ids.empty()) return;
  const uint32_t set_id = refs.row_count();
  for (size_t i = 0; i < o.referred_ids.size(); ++i) {
    std::optional<uint32_t> owned;
    if (o.referred_ids[i]) owned = ObjectRow(dump, o.referred_ids[i]);
    uint32_t ref = refs.Insert(set_id, row, owned, kNullStringId, kNullStringId);
    if (owned) dump.edges.emplace_back(row, *owned);
    // A field id only gets its name from a later interning (upstream names
    // waiting references when a name is interned, never on insertion).
    if (i < o.field_ids.size()) dump.refs_by_field[o.field_ids[i]].push_back(ref);
  }
  if (o.field_ids.empty() && !o.referred_ids.empty())
    dump.class_field_refs.push_back(
        {o.type_id, set_id, static_cast<uint32_t>(o.referred_ids.size())});
  const StringId runtime_internal = s->Intern("runtimeInternalObjects");
  for (uint64_t r : o.runtime_internal_ids) {
    std::optional<uint32_t> owned;
    if (r) owned = ObjectRow(dump, r);
    refs.Insert(set_id, row, owned, runtime_internal, kNullStringId);
    if (owned) dump.edges.emplace_back(row, *owned);
  }
  objects.reference_set_id.Set(row, set_id);
}

// "int a.a": optional static type, then the field.
void HeapGraphParser::NameReference(uint32_t ref, std::string_view field) {
  TraceStorage* s = ctx_->storage.get();
  auto& refs = s->profile.heap_graph_reference;
  size_t space = field.find(' ');
  if (space != std::string_view::npos) {
    refs.field_type_name.Set(ref, s->Intern(field.substr(0, space)));
    field = field.substr(space + 1);
  }
  refs.field_name.Set(ref, s->Intern(field));
}

void HeapGraphParser::InternFieldName(Dump& dump, uint64_t iid, std::string_view name) {
  dump.field_names[iid] = std::string(name);
  auto it = dump.refs_by_field.find(iid);
  if (it == dump.refs_by_field.end()) return;
  for (uint32_t ref : it->second) NameReference(ref, name);
}

// Classes objects named get their names now; types no object named follow
// in type id order. superclass_id stays NULL as upstream's.
void HeapGraphParser::FinalizeClasses(Dump& dump) {
  TraceStorage* s = ctx_->storage.get();
  auto& classes = s->profile.heap_graph_class;
  for (const auto& [id, t] : dump.types) ClassRow(dump, id);
  for (const auto& [id, t] : dump.types) {
    uint32_t row = dump.class_rows[id];
    classes.name.Set(row, s->Intern(t.name));
    classes.kind.Set(row, s->Intern(ClassKindName(t.kind)));
    if (t.location_id) {
      auto it = dump.location_names.find(t.location_id);
      if (it != dump.location_names.end())
        classes.location.Set(row, s->Intern(it->second));
      else
        s->stats.IncrementIndexed(Stat::kHeapGraphInvalidId, dump.upid);
    }
    auto super = dump.class_rows.find(t.superclass_id);
    if (t.superclass_id && super != dump.class_rows.end())
      classes.resolved_superclass_id.Set(row, super->second);
    // Class loaders are objects.
    auto loader = dump.object_rows.find(t.classloader_id);
    if (t.classloader_id && loader != dump.object_rows.end())
      classes.classloader_id.Set(row, loader->second);
  }
}

// References of objects that listed no field ids take their class's field
// list, then its superclasses' (most derived first).
void HeapGraphParser::NameClassFieldRefs(Dump& dump) {
  TraceStorage* s = ctx_->storage.get();
  for (const ClassFieldRefs& c : dump.class_field_refs) {
    std::vector<uint64_t> fields;
    std::set<uint64_t> seen;
    for (uint64_t t = c.type_id; t && seen.insert(t).second;) {
      auto it = dump.types.find(t);
      if (it == dump.types.end()) break;
      fields.insert(fields.end(), it->second.field_ids.begin(), it->second.field_ids.end());
      t = it->second.superclass_id;
    }
    // Upstream counts each unnamed field, and once an object with more
    // references than fields.
    if (c.count > fields.size()) s->stats.IncrementIndexed(Stat::kHeapGraphMalformed, dump.upid);
    for (uint32_t i = 0; i < c.count && i < fields.size(); ++i) {
      auto it = dump.field_names.find(fields[i]);
      if (it == dump.field_names.end())
        s->stats.IncrementIndexed(Stat::kHeapGraphMalformed, dump.upid);
      else
        NameReference(c.first_ref + i, it->second);
    }
  }
}

// Roots, then reachability and distance to the nearest root (multi-source
// BFS). Objects outside the app heap (zygote, boot image) are never
// collected, so ART treats them as VM-internal roots.
void HeapGraphParser::MarkReachable(Dump& dump) {
  TraceStorage* s = ctx_->storage.get();
  auto& objects = s->profile.heap_graph_object;
  std::vector<uint32_t> root_rows;
  for (const auto& [type, ids] : dump.roots) {
    for (uint64_t id : ids) {
      auto it = dump.object_rows.find(id);
      if (it == dump.object_rows.end()) continue;
      if (objects.root_type[it->second] == kNullStringId)
        objects.root_type.Set(it->second, s->Intern(RootTypeName(type)));
      root_rows.push_back(it->second);
    }
  }
  for (const DefinedObject& o : dump.defined) {
    if ((o.heap_type == HeapGraphObject::HEAP_TYPE_ZYGOTE ||
         o.heap_type == HeapGraphObject::HEAP_TYPE_BOOT_IMAGE) &&
        objects.root_type[o.row] == kNullStringId) {
      objects.root_type.Set(o.row, s->Intern(RootTypeName(HeapGraphRoot::ROOT_VM_INTERNAL)));
      root_rows.push_back(o.row);
    }
  }
  std::unordered_map<uint32_t, std::vector<uint32_t>> children;
  for (const auto& [owner, owned] : dump.edges) children[owner].push_back(owned);
  std::deque<uint32_t> queue;
  for (uint32_t r : root_rows) {
    if (objects.root_distance[r] == 0) continue;
    objects.root_distance.Set(r, 0);
    objects.reachable.Set(r, 1);
    queue.push_back(r);
  }
  while (!queue.empty()) {
    uint32_t n = queue.front();
    queue.pop_front();
    int32_t dist = objects.root_distance[n];
    auto it = children.find(n);
    if (it == children.end()) continue;
    for (uint32_t c : it->second) {
      if (objects.root_distance[c] != -1) continue;
      objects.root_distance.Set(c, dist + 1);
      objects.reachable.Set(c, 1);
      queue.push_back(c);
    }
  }
}

void HeapGraphParser::Finalize(Dump& dump) {
  TraceStorage* s = ctx_->storage.get();
  auto& objects = s->profile.heap_graph_object;
  FinalizeClasses(dump);
  // Objects without a self_size take their class's object size; when the
  // dump never defines that type, upstream counts the object as malformed.
  for (const DefinedObject& o : dump.defined) {
    if (o.has_self_size) continue;
    auto t = dump.types.find(o.type_id);
    if (t == dump.types.end()) s->stats.IncrementIndexed(Stat::kHeapGraphMalformed, dump.upid);
    objects.self_size.Set(o.row,
                          t == dump.types.end() ? 0 : static_cast<int64_t>(t->second.object_size));
  }
  NameClassFieldRefs(dump);
  AttributeNativeSizes(s, dump.rows, dump.registry_sizes);
  MarkReachable(dump);

  // A row of the same process and time already made for an OOME (from
  // ArtProcessMetadata) is this dump's.
  auto& graphs = s->profile.heap_graph;
  std::optional<uint32_t> graph;
  for (uint32_t i = 0; i < graphs.row_count() && !graph; ++i)
    if (graphs.upid[i] == dump.upid && graphs.ts[i] == dump.ts) graph = i;
  if (!graph)
    graphs.Insert(dump.ts, dump.upid, dump.heap_size);
  else if (dump.heap_size)
    graphs.heap_size.Set(*graph, *dump.heap_size);
  // Upstream's bounds see heap graphs through their objects only.
  if (!dump.rows.empty()) s->UpdateBounds(dump.ts);
}

void HeapGraphParser::ParseDeobfuscationMapping(proto::Bytes payload) {
  std::string package;
  std::vector<proto::Bytes> classes;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == DeobfuscationMapping::kPackageNameFieldNumber) package = std::string(f.as_string());
    if (f.id == DeobfuscationMapping::kObfuscatedClassesFieldNumber) classes.push_back(f.bytes);
  }
  if (!package.empty()) {
    // Interned so that frames' packages (frame_packages.h) can be found.
    ctx_->storage->Intern(package);
    std::erase(deobfuscation_order_, package);
    deobfuscation_order_.push_back(package);
  }
  auto& by_class = deobfuscation_[package];
  for (proto::Bytes c : classes) {
    std::string obfuscated;
    ClassMapping m;
    proto::Decoder cd(c);
    for (proto::Field f = cd.Next(); f.valid(); f = cd.Next()) {
      switch (f.id) {
        case ObfuscatedClass::kObfuscatedNameFieldNumber:
          obfuscated = f.as_string();
          break;
        case ObfuscatedClass::kDeobfuscatedNameFieldNumber:
          m.deobfuscated = f.as_string();
          break;
        case ObfuscatedClass::kObfuscatedMembersFieldNumber:
        case ObfuscatedClass::kObfuscatedMethodsFieldNumber: {
          std::string from, to;
          proto::Decoder md(f.bytes);
          for (proto::Field g = md.Next(); g.valid(); g = md.Next()) {
            if (g.id == ObfuscatedMember::kObfuscatedNameFieldNumber) from = g.as_string();
            if (g.id == ObfuscatedMember::kDeobfuscatedNameFieldNumber) to = g.as_string();
          }
          m.members[std::move(from)].push_back(std::move(to));
          break;
        }
      }
    }
    by_class[obfuscated] = std::move(m);
  }
}

void HeapGraphParser::ApplyDeobfuscation() {
  if (deobfuscation_.empty()) return;
  TraceStorage* s = ctx_->storage.get();
  // Class lookup: a class whose location names an app package only uses that
  // package's mapping; classes without (usable) location use any mapping
  // (old perfetto_hprof versions did not record locations).
  auto find_class = [&](std::string_view name,
                        const std::optional<std::string>& package) -> const ClassMapping* {
    for (const auto& [pkg, classes] : deobfuscation_) {
      if (package && pkg != *package) continue;
      auto it = classes.find(std::string(name));
      if (it != classes.end()) return &it->second;
    }
    return nullptr;
  };
  auto& classes = s->profile.heap_graph_class;
  for (uint32_t i = 0; i < classes.row_count(); ++i) {
    std::optional<std::string> package;
    if (classes.location[i] != kNullStringId) {
      std::string_view loc = s->GetString(classes.location[i]);
      if (loc.substr(0, 8) != "base.apk") {
        package = AppPackageOfPath(loc);
        if (!package) continue;
      }
    }
    NormalizedType n = Normalize(s->GetString(classes.name[i]));
    const ClassMapping* m = find_class(n.name, package);
    if (m && !m->deobfuscated.empty())
      classes.deobfuscated_name.Set(i, s->Intern(Denormalize(n, m->deobfuscated)));
  }
  // "Class.member" -> deobfuscated class + member; members moved to another
  // class are mapped to an already qualified name. A name that stands for
  // several members gives them all, sorted and joined by " | " (as upstream).
  MemberDeobfuscator deobfuscate_member =
      [&](std::string_view qualified,
          const std::optional<std::string>& package) -> std::optional<std::string> {
    size_t dot = qualified.rfind('.');
    if (dot == std::string_view::npos) return std::nullopt;
    const ClassMapping* m = find_class(qualified.substr(0, dot), package);
    if (!m) return std::nullopt;
    auto it = m->members.find(std::string(qualified.substr(dot + 1)));
    if (it == m->members.end()) return std::nullopt;
    std::set<std::string> names;
    for (const std::string& member : it->second) {
      if (member.find('.') != std::string::npos)
        names.insert(member);
      else
        names.insert(
            (m->deobfuscated.empty() ? std::string(qualified.substr(0, dot)) : m->deobfuscated) +
            "." + member);
    }
    std::string joined;
    for (const std::string& n : names) joined += (joined.empty() ? "" : " | ") + n;
    return joined;
  };
  auto& refs = s->profile.heap_graph_reference;
  for (uint32_t i = 0; i < refs.row_count(); ++i) {
    if (refs.field_name[i] == kNullStringId) continue;
    if (auto d = deobfuscate_member(s->GetString(refs.field_name[i]), std::nullopt))
      refs.deobfuscated_field_name.Set(i, s->Intern(*d));
  }
  DeobfuscateFrames(deobfuscate_member);
}

void HeapGraphParser::DeobfuscateFrames(const MemberDeobfuscator& deobfuscate_member) {
  // A frame only takes the mapping of a package it belongs to (see
  // frame_packages.h): two apps' obfuscated "a.b" stay apart.
  TraceStorage* s = ctx_->storage.get();
  auto& frames = s->profile.stack_profile_frame;
  FramePackages owners = FindFramePackages(*s);
  std::vector<StringId> order_ids;
  for (const std::string& package : deobfuscation_order_)
    order_ids.push_back(s->strings.Find(package));
  for (uint32_t i = 0; i < frames.row_count(); ++i) {
    const std::vector<StringId>& mine = owners.packages[i];
    if (!owners.any_package[i] && mine.empty()) continue;
    for (size_t k = order_ids.size(); k-- > 0;) {
      if (!owners.any_package[i] && !std::binary_search(mine.begin(), mine.end(), order_ids[k]))
        continue;
      if (auto d = deobfuscate_member(s->GetString(frames.name[i]), deobfuscation_order_[k])) {
        frames.deobfuscated_name.Set(i, s->Intern(*d));
        break;
      }
    }
  }
}

void HeapGraphParser::OnImportFinished() {
  for (auto& [seq, dump] : dumps_) {
    // Like upstream, an unfinished dump is reported, then kept as it is.
    if (!dump.active) continue;
    ctx_->storage->stats.Increment(Stat::kHeapGraphNonFinalized);
    Finalize(dump);
  }
  dumps_.clear();
  ApplyDeobfuscation();
}

}  // namespace fathom
