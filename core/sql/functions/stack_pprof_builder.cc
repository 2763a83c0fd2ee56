#include "core/sql/functions/stack_pprof_builder.h"

#include "core/sql/functions/proto_writer.h"

namespace fathom {
namespace {

using proto_out::BytesField;
using proto_out::PackedField;
using proto_out::VarintField;

// perftools.profiles field numbers (profile.proto).
enum ProfileField : uint32_t {
  kSampleType = 1,
  kSample = 2,
  kMapping = 3,
  kLocation = 4,
  kFunction = 5,
  kStringTable = 6
};

}  // namespace

StackPprofBuilder::StackPprofBuilder(
    const TraceStorage* storage,
    const std::vector<std::pair<std::string, std::string>>& sample_types)
    : storage_(storage) {
  InternString("");
  for (const auto& [type, unit] : sample_types) {
    std::string vt;
    const int64_t type_id = InternString(type);
    const int64_t unit_id = InternString(unit);
    VarintField(&vt, 1, static_cast<uint64_t>(type_id));
    VarintField(&vt, 2, static_cast<uint64_t>(unit_id));
    BytesField(&out_, kSampleType, vt);
  }
}

int64_t StackPprofBuilder::InternString(std::string_view s) {
  auto [it, inserted] = strings_.emplace(std::string(s), static_cast<int64_t>(strings_.size()));
  if (inserted) BytesField(&out_, kStringTable, s);
  return it->second;
}

uint64_t StackPprofBuilder::InternMapping(uint32_t row) {
  auto it = mapping_ids_.find(row);
  if (it != mapping_ids_.end()) return it->second;
  const auto& t = storage_->profile.stack_profile_mapping;
  const uint64_t id = mapping_ids_.size() + 1;
  mapping_ids_.emplace(row, id);
  const int64_t build_id = InternString(storage_->GetString(t.build_id[row]));
  const int64_t filename = InternString(storage_->GetString(t.name[row]));
  std::string m;
  VarintField(&m, 1, id);
  VarintField(&m, 2, static_cast<uint64_t>(t.start[row]));
  VarintField(&m, 3, static_cast<uint64_t>(t.end[row]));
  VarintField(&m, 4, static_cast<uint64_t>(t.exact_offset[row]));
  VarintField(&m, 5, static_cast<uint64_t>(filename));
  VarintField(&m, 6, static_cast<uint64_t>(build_id));
  VarintField(&m, 7, 1);  // has_functions
  for (uint32_t field = 8; field <= 10; ++field) VarintField(&m, field, 0);
  mappings_.push_back(std::move(m));
  return id;
}

uint64_t StackPprofBuilder::InternFunction(int64_t name, int64_t system_name) {
  if (name == 0) return 0;  // an unnamed frame has no function
  auto [it, inserted] =
      function_ids_.emplace(FunctionKey{name, system_name}, function_ids_.size() + 2);
  if (!inserted) return it->second;
  std::string f;
  VarintField(&f, 1, it->second);
  VarintField(&f, 2, static_cast<uint64_t>(name));
  if (system_name != 0) VarintField(&f, 3, static_cast<uint64_t>(system_name));
  functions_.push_back(std::move(f));
  return it->second;
}

uint64_t StackPprofBuilder::InternLocation(uint64_t mapping, std::optional<uint64_t> address,
                                           uint64_t function) {
  auto [it, inserted] = location_ids_.emplace(LocationKey{mapping, address.value_or(0), function},
                                              location_ids_.size() + 1);
  if (!inserted) return it->second;
  std::string loc, line;
  VarintField(&loc, 1, it->second);
  VarintField(&loc, 2, mapping);
  if (address) VarintField(&loc, 3, *address);
  VarintField(&line, 1, function);
  BytesField(&loc, 4, line);
  locations_.push_back(std::move(loc));
  return it->second;
}

uint64_t StackPprofBuilder::NameLocation(std::string_view name) {
  return InternLocation(0, std::nullopt, InternFunction(InternString(name), 0));
}

bool StackPprofBuilder::FrameLocation(uint64_t frame, uint64_t* location) {
  const auto& frames = storage_->profile.stack_profile_frame;
  if (frame >= frames.row_count()) return false;
  const uint32_t row = static_cast<uint32_t>(frame);
  const uint64_t mapping = InternMapping(frames.mapping[row]);
  const int64_t name = InternString(storage_->GetString(frames.name[row]));
  const uint64_t function = InternFunction(name, name);
  *location = InternLocation(mapping, static_cast<uint64_t>(frames.rel_pc[row]), function);
  return true;
}

bool StackPprofBuilder::AddCallsite(uint64_t callsite, std::vector<uint64_t>* locations) {
  const auto& callsites = storage_->profile.stack_profile_callsite;
  if (callsite >= callsites.row_count()) return false;
  for (std::optional<uint32_t> c = static_cast<uint32_t>(callsite); c;
       c = callsites.parent_id.Get(*c)) {
    uint64_t location;
    if (!FrameLocation(callsites.frame_id[*c], &location)) return false;
    locations->push_back(location);
  }
  return true;
}

Status StackPprofBuilder::AddSample(const std::vector<StackEntry>& stack,
                                    const std::vector<int64_t>& values) {
  if (stack.empty()) return Status::Ok();  // upstream drops a stack without entries
  std::vector<uint64_t> locations;
  for (const StackEntry& e : stack) {
    bool ok = true;
    switch (e.kind) {
      case StackEntry::kName:
        locations.push_back(NameLocation(e.name));
        break;
      case StackEntry::kCallsite:
      case StackEntry::kAnnotatedCallsite:  // annotations only differ for ART frames
        ok = AddCallsite(e.id, &locations);
        break;
      case StackEntry::kFrame: {
        uint64_t location;
        ok = FrameLocation(e.id, &location);
        if (ok) locations.push_back(location);
        break;
      }
      default:  // an entry that sets none of its fields adds no frame
        break;
    }
    if (!ok) return ErrorStatus("Failed to add callstack");
  }
  auto [it, inserted] = sample_index_.emplace(locations, samples_.size());
  if (inserted) {
    samples_.push_back(Sample{std::move(locations), std::vector<uint64_t>(values.size(), 0)});
  }
  Sample& s = samples_[it->second];
  // Two's-complement sums: wraps instead of overflowing a signed add.
  for (size_t i = 0; i < values.size(); ++i) s.values[i] += static_cast<uint64_t>(values[i]);
  return Status::Ok();
}

std::string StackPprofBuilder::Finish() {
  std::string out = std::move(out_);
  for (const std::string& m : mappings_) BytesField(&out, kMapping, m);
  for (const std::string& f : functions_) BytesField(&out, kFunction, f);
  for (const std::string& l : locations_) BytesField(&out, kLocation, l);
  for (const Sample& s : samples_) {
    std::string body;
    PackedField(&body, 2, s.values);
    PackedField(&body, 1, s.locations);
    BytesField(&out, kSample, body);
  }
  return out;
}

}  // namespace fathom
