#include "core/symbols/deobfuscate.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "core/import/frame_packages.h"
#include "core/storage/trace_storage.h"
#include "perfetto/trace/trace.pb.h"

namespace fathom::symbols {
namespace {

// "java.lang.Class<a.b[][]>" -> "a.b" (the importer's heap_graph_class names).
std::string_view BaseClass(std::string_view t) {
  constexpr std::string_view kClass = "java.lang.Class<";
  if (t.size() > kClass.size() && t.substr(0, kClass.size()) == kClass && t.back() == '>')
    t = t.substr(kClass.size(), t.size() - kClass.size() - 1);
  while (t.size() >= 2 && t.substr(t.size() - 2) == "[]") t.remove_suffix(2);
  return t;
}

// "int a.b.c" / "a.b.c" / "a.b.c(int)" -> {"a.b", "c"}; empty class when there
// is no dot.
std::pair<std::string, std::string> SplitMember(std::string_view q) {
  if (size_t paren = q.find('('); paren != std::string_view::npos) q = q.substr(0, paren);
  if (size_t space = q.rfind(' '); space != std::string_view::npos) q.remove_prefix(space + 1);
  size_t dot = q.rfind('.');
  if (dot == std::string_view::npos) return {};
  return {std::string(q.substr(0, dot)), std::string(q.substr(dot + 1))};
}

// Whether the importer will let `package`'s mapping name any frame
// (frame_packages.h): some frame belongs to it, or a JIT frame takes any.
class FrameOwners {
 public:
  explicit FrameOwners(const TraceStorage& s) : s_(s) {
    FramePackages owners = FindFramePackages(s);
    for (const auto& list : owners.packages) reached_.insert(list.begin(), list.end());
    any_ = std::find(owners.any_package.begin(), owners.any_package.end(), true) !=
           owners.any_package.end();
  }
  bool Reach(const std::string& package) const {
    StringId id = s_.strings.Find(package);
    return any_ || (id != kNullStringId && reached_.count(id));
  }

 private:
  const TraceStorage& s_;
  std::set<StringId> reached_;
  bool any_ = false;
};

}  // namespace

std::string NoFramesOfPackageNote(const std::string& package) {
  return "Java frames stay obfuscated for " + package +
         ": no profiled process is known to run it (the trace's package_list has no entry "
         "for its uid) and no frame is in its /data/app/ files. Fathom, like Perfetto, "
         "deobfuscates a frame only with the map of its app's package: record the "
         "packages_list data source (android.packages_list) with the profile. Heap graph "
         "classes are deobfuscated anyway.";
}

Result<std::vector<ProguardMapSpec>> ProguardMapsFromEnvironment() {
  for (const char* var : {"FATHOM_PROGUARD_MAP", "PERFETTO_PROGUARD_MAP"}) {
    const char* v = getenv(var);
    if (!v || !*v) continue;
    auto specs = ParseProguardMapSpecs(v);
    if (!specs.ok()) return ErrorStatus(std::string(var) + ": " + specs.status().message());
    return specs;
  }
  return std::vector<ProguardMapSpec>{};
}

Result<DeobfuscateResult> DeobfuscateTrace(const TraceStorage& s,
                                           const std::vector<ProguardMapSpec>& maps) {
  // What the trace uses: class -> members (fields and methods share names
  // in DeobfuscationMapping's lookup by "Class.member").
  std::map<std::string, std::set<std::string>> used;
  const auto& classes = s.profile.heap_graph_class;
  for (uint32_t i = 0; i < classes.row_count(); ++i)
    used[std::string(BaseClass(s.GetString(classes.name[i])))];
  auto add_member = [&](std::string_view q) {
    auto [cls, member] = SplitMember(q);
    if (!cls.empty() && !member.empty()) used[cls].insert(member);
  };
  const auto& refs = s.profile.heap_graph_reference;
  std::set<StringId> seen;  // field names repeat for every object
  for (uint32_t i = 0; i < refs.row_count(); ++i)
    if (refs.field_name[i] != kNullStringId && seen.insert(refs.field_name[i]).second)
      add_member(s.GetString(refs.field_name[i]));
  const auto& frames = s.profile.stack_profile_frame;
  std::set<std::string> frame_classes;
  for (uint32_t i = 0; i < frames.row_count(); ++i) {
    if (frames.name[i] == kNullStringId) continue;
    add_member(s.GetString(frames.name[i]));
    frame_classes.insert(SplitMember(s.GetString(frames.name[i])).first);
  }
  used.erase("");
  frame_classes.erase("");

  DeobfuscateResult result;
  result.classes = used.size();
  std::set<std::string> mapped;
  perfetto::protos::Trace trace;
  const FrameOwners owners(s);
  for (const ProguardMapSpec& spec : maps) {
    auto mapping = ReadProguardMap(spec.file);
    if (!mapping.ok()) return mapping.status();
    auto* dm = trace.add_packet()->mutable_deobfuscation_mapping();
    dm->set_package_name(spec.package);
    bool maps_a_frame = false;
    for (const auto& [obfuscated, members] : used) {
      auto it = mapping->find(obfuscated);
      if (it == mapping->end()) continue;
      const ProguardClass& cls = it->second;
      mapped.insert(obfuscated);
      maps_a_frame = maps_a_frame || frame_classes.count(obfuscated);
      auto* oc = dm->add_obfuscated_classes();
      oc->set_obfuscated_name(obfuscated);
      oc->set_deobfuscated_name(cls.deobfuscated);
      for (const std::string& m : members) {
        if (auto f = cls.fields.find(m); f != cls.fields.end()) {
          auto* om = oc->add_obfuscated_members();
          om->set_obfuscated_name(m);
          om->set_deobfuscated_name(f->second);
          result.members_mapped++;
        }
        if (auto f = cls.methods.find(m); f != cls.methods.end()) {
          auto* om = oc->add_obfuscated_methods();
          om->set_obfuscated_name(m);
          om->set_deobfuscated_name(MethodDisplayName(cls, f->second));
          result.members_mapped++;
        }
      }
    }
    if (maps_a_frame && !owners.Reach(spec.package))
      result.packages_without_frames.push_back(spec.package);
  }
  result.classes_mapped = mapped.size();
  for (const auto& [cls, members] : used)
    if (!mapped.count(cls) && result.unmapped.size() < 20) result.unmapped.push_back(cls);
  result.packets = trace.SerializeAsString();
  return result;
}

}  // namespace fathom::symbols
