// pprof writer: a perftools.profiles.Profile (public profile.proto field
// numbers), gzipped as `pprof` expects.
#include <zlib.h>

#include <map>
#include <unordered_map>

#include "core/export/flamegraph_export.h"
#include "third_party/pprof/profile.pb.h"

namespace fathom {
namespace {

struct SampleType {
  const char* type;
  const char* unit;
  Metric metric;
};

std::vector<SampleType> SampleTypesOf(ProfileKind kind) {
  switch (kind) {
    case ProfileKind::kNative:
      return {{"alloc_objects", "count", Metric::kAllocCount},
              {"alloc_space", "bytes", Metric::kAllocSize},
              {"inuse_objects", "count", Metric::kCount},
              {"inuse_space", "bytes", Metric::kSize}};
    case ProfileKind::kJavaGraph:
      return {{"objects", "count", Metric::kCount}, {"space", "bytes", Metric::kSize}};
    case ProfileKind::kJavaSamples:
      return {{"alloc_objects", "count", Metric::kAllocCount},
              {"alloc_space", "bytes", Metric::kAllocSize}};
    case ProfileKind::kCpu:
      return {{"samples", "count", Metric::kCount}};
    case ProfileKind::kAggregate:
      return {{"value", "count", Metric::kSize}};  // ExportPprof names it from the options
  }
  return {};
}

class StringTable {
 public:
  explicit StringTable(perftools::profiles::Profile* p) : p_(p) { Id(""); }
  int64_t Id(std::string_view s) {
    auto [it, inserted] = ids_.emplace(std::string(s), static_cast<int64_t>(ids_.size()));
    if (inserted) p_->add_string_table(std::string(s));
    return it->second;
  }

 private:
  perftools::profiles::Profile* p_;
  std::unordered_map<std::string, int64_t> ids_;
};

Result<std::string> Gzip(const std::string& in) {
  z_stream z{};
  // windowBits 15 + 16: gzip header and trailer.
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return ErrorStatus("gzip: deflateInit2 failed");
  std::string out(deflateBound(&z, in.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&z, Z_FINISH);
  size_t written = z.total_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return ErrorStatus("gzip: deflate failed");
  out.resize(written);
  return out;
}

}  // namespace

Result<std::string> ExportPprof(const Flamegraph& fg, const ExportOptions& opt) {
  perftools::profiles::Profile p;
  StringTable strings(&p);
  std::vector<SampleType> types = SampleTypesOf(opt.kind);
  if (opt.kind == ProfileKind::kAggregate && !opt.sample_type.empty())
    types = {{opt.sample_type.c_str(),
              opt.sample_unit.empty() ? "count" : opt.sample_unit.c_str(), Metric::kSize}};
  Metric shown = MetricOf(opt.view);
  for (size_t i = 0; i < types.size(); ++i) {
    auto* vt = p.add_sample_type();
    vt->set_type(strings.Id(types[i].type));
    vt->set_unit(strings.Id(types[i].unit));
    if (types[i].metric == shown) p.set_default_sample_type(strings.Id(types[i].type));
  }
  p.set_time_nanos(opt.time_nanos);

  // Mappings per library, functions per frame name, locations per
  // (frame, library); ids start at 1 (0 means "none" in pprof).
  std::map<std::string, uint64_t> mapping_id;
  std::map<std::string, uint64_t> function_id;
  std::map<std::pair<std::string, std::string>, uint64_t> location_id;
  std::vector<uint64_t> loc_of(fg.size());
  for (uint32_t i = 0; i < fg.size(); ++i) {
    std::string name(fg.name(i)), map(fg.map_name(i));
    auto [lit, new_loc] = location_id.emplace(std::make_pair(name, map), location_id.size() + 1);
    loc_of[i] = lit->second;
    if (!new_loc) continue;
    uint64_t mid = 0;
    if (!map.empty()) {
      auto [mit, new_map] = mapping_id.emplace(map, mapping_id.size() + 1);
      mid = mit->second;
      if (new_map) {
        auto* m = p.add_mapping();
        m->set_id(mid);
        m->set_filename(strings.Id(map));
        m->set_has_functions(true);
      }
    }
    auto [fit, new_fn] = function_id.emplace(name, function_id.size() + 1);
    if (new_fn) {
      auto* f = p.add_function();
      f->set_id(fit->second);
      f->set_name(strings.Id(name));
      f->set_system_name(strings.Id(name));
    }
    auto* loc = p.add_location();
    loc->set_id(lit->second);
    loc->set_mapping_id(mid);
    loc->add_line()->set_function_id(fit->second);
  }

  for (uint32_t i = 0; i < fg.size(); ++i) {
    const FlamegraphNode& n = fg.node(i);
    bool any = false;
    for (const SampleType& t : types) any |= n.self(t.metric) != 0;
    if (!any) continue;
    auto* s = p.add_sample();
    // pprof stacks are leaf first.
    for (std::optional<uint32_t> f = i; f; f = fg.node(*f).parent) s->add_location_id(loc_of[*f]);
    for (const SampleType& t : types) s->add_value(n.self(t.metric));
  }
  std::string raw;
  if (!p.SerializeToString(&raw)) return ErrorStatus("pprof: cannot serialize the profile");
  return Gzip(raw);
}

}  // namespace fathom
