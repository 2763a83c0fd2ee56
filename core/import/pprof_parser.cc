#include "core/import/pprof_parser.h"

#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/import/profile_parser.h"
#include "core/import/profile_stack_tracker.h"
#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"
#include "third_party/pprof/profile.pb.h"

namespace fathom {
namespace {

namespace pp = perftools::profiles;
using proto::Bytes;
using proto::Decoder;
using proto::Field;
using proto::WireType;

// Wire type each top-level Profile field may have (-1: not a Profile field).
// Repeated int64 `comment` may be packed (LEN) or not (varint).
bool ProfileFieldFits(uint32_t id, WireType t) {
  switch (id) {
    case pp::Profile::kSampleTypeFieldNumber:
    case pp::Profile::kSampleFieldNumber:
    case pp::Profile::kMappingFieldNumber:
    case pp::Profile::kLocationFieldNumber:
    case pp::Profile::kFunctionFieldNumber:
    case pp::Profile::kStringTableFieldNumber:
    case pp::Profile::kPeriodTypeFieldNumber:
      return t == WireType::kLengthDelimited;
    case pp::Profile::kCommentFieldNumber:
      return t == WireType::kLengthDelimited || t == WireType::kVarint;
    case pp::Profile::kDropFramesFieldNumber:
    case pp::Profile::kKeepFramesFieldNumber:
    case pp::Profile::kTimeNanosFieldNumber:
    case pp::Profile::kDurationNanosFieldNumber:
    case pp::Profile::kPeriodFieldNumber:
    case pp::Profile::kDefaultSampleTypeFieldNumber:
      return t == WireType::kVarint;
    default:
      // Newer schema revisions add fields above 14; accept any wire type.
      return id > pp::Profile::kDefaultSampleTypeFieldNumber && id < 64;
  }
}

bool IsValueType(Bytes b) {
  Decoder d(b);
  for (Field f = d.Next(); f.valid(); f = d.Next())
    if (f.type != WireType::kVarint ||
        (f.id != pp::ValueType::kTypeFieldNumber && f.id != pp::ValueType::kUnitFieldNumber))
      return false;
  return !d.error();
}

// Appends the varints of one occurrence of a repeated scalar (packed or not).
bool AppendVarints(const Field& f, std::vector<uint64_t>* out) {
  if (f.type == WireType::kVarint) {
    out->push_back(f.int_value);
    return true;
  }
  if (f.type != WireType::kLengthDelimited) return false;
  proto::PackedVarints it(f.bytes);
  uint64_t v;
  while (it.Next(&v)) out->push_back(v);
  return !it.error();
}

struct Function {
  int64_t name = 0, system_name = 0;
};
struct MappingRow {
  uint64_t start = 0, limit = 0, offset = 0;
  int64_t filename = 0, build_id = 0;
};
struct Location {
  uint64_t mapping_id = 0, address = 0;
  std::vector<uint64_t> function_ids;  // Line order: innermost (inlined) first
};
struct Sample {
  std::vector<uint64_t> location_ids;  // leaf first
  std::vector<uint64_t> values;        // int64 bit patterns
};

// The whole profile, decoded and checked, before anything is written.
class Profile {
 public:
  Profile(const uint8_t* data, size_t size) : base_(data), size_(size) {}

  Status Decode();

  std::vector<std::string_view> strings;
  std::vector<std::pair<int64_t, int64_t>> sample_types;  // (type, unit) string indices
  int64_t default_sample_type = 0;
  std::unordered_map<uint64_t, Function> functions;
  std::unordered_map<uint64_t, MappingRow> mappings;
  std::unordered_map<uint64_t, Location> locations;
  std::vector<uint64_t> location_order;  // ids in file order (stable frame ids)
  std::vector<Sample> samples;
  uint64_t labels = 0;

 private:
  std::string At(const uint8_t* p) const {
    return "byte offset " + std::to_string(static_cast<size_t>(p - base_)) + ": ";
  }
  std::string At(Bytes b) const { return At(b.data); }
  Status Malformed(Bytes b, const char* what, const Decoder& d) const {
    return ErrorStatus(At(b.data + d.error_offset()) + "malformed " + what +
                       " (not a valid protobuf message)");
  }
  // Every string index must name an entry of string_table.
  Status CheckString(Bytes where, const char* what, int64_t idx) const {
    if (idx >= 0 && static_cast<uint64_t>(idx) < strings.size()) return Status::Ok();
    return ErrorStatus(At(where) + what + " is string index " + std::to_string(idx) +
                       " but string_table has " + std::to_string(strings.size()) + " entries");
  }

  const uint8_t* base_;
  size_t size_;
};

Status Profile::Decode() {
  Decoder d(base_, size_);
  std::vector<Bytes> types, sample_msgs, mapping_msgs, location_msgs, function_msgs;
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    if (!ProfileFieldFits(f.id, f.type))
      return ErrorStatus(At(base_ + d.offset()) + "field " + std::to_string(f.id) +
                         " with wire type " + std::to_string(static_cast<int>(f.type)) +
                         " is not part of a pprof Profile");
    switch (f.id) {
      case pp::Profile::kSampleTypeFieldNumber:
        types.push_back(f.bytes);
        break;
      case pp::Profile::kSampleFieldNumber:
        sample_msgs.push_back(f.bytes);
        break;
      case pp::Profile::kMappingFieldNumber:
        mapping_msgs.push_back(f.bytes);
        break;
      case pp::Profile::kLocationFieldNumber:
        location_msgs.push_back(f.bytes);
        break;
      case pp::Profile::kFunctionFieldNumber:
        function_msgs.push_back(f.bytes);
        break;
      case pp::Profile::kStringTableFieldNumber:
        strings.push_back(f.as_string());
        break;
      case pp::Profile::kDefaultSampleTypeFieldNumber:
        default_sample_type = f.as_int64();
        break;
      default:
        break;
    }
  }
  if (d.error())
    return ErrorStatus(At(base_ + d.error_offset()) +
                       "truncated or malformed pprof profile (a field runs past the end)");
  if (strings.empty() || !strings[0].empty())
    return ErrorStatus("byte offset 0: pprof string_table must start with the empty string");
  if (types.empty()) return ErrorStatus("byte offset 0: pprof profile has no sample_type");
  if (default_sample_type != 0)
    if (Status st = CheckString(Bytes{base_, 0}, "default_sample_type", default_sample_type);
        !st.ok())
      return st;

  for (Bytes b : types) {
    std::pair<int64_t, int64_t> vt{0, 0};
    Decoder m(b);
    for (Field f = m.Next(); f.valid(); f = m.Next()) {
      if (f.id == pp::ValueType::kTypeFieldNumber) vt.first = f.as_int64();
      if (f.id == pp::ValueType::kUnitFieldNumber) vt.second = f.as_int64();
    }
    if (m.error()) return Malformed(b, "sample_type", m);
    if (Status st = CheckString(b, "sample_type.type", vt.first); !st.ok()) return st;
    if (Status st = CheckString(b, "sample_type.unit", vt.second); !st.ok()) return st;
    sample_types.push_back(vt);
  }

  for (Bytes b : function_msgs) {
    uint64_t id = 0;
    Function fn;
    int64_t filename = 0;
    Decoder m(b);
    for (Field f = m.Next(); f.valid(); f = m.Next()) {
      switch (f.id) {
        case pp::Function::kIdFieldNumber:
          id = f.as_uint64();
          break;
        case pp::Function::kNameFieldNumber:
          fn.name = f.as_int64();
          break;
        case pp::Function::kSystemNameFieldNumber:
          fn.system_name = f.as_int64();
          break;
        case pp::Function::kFilenameFieldNumber:
          filename = f.as_int64();
          break;
        default:
          break;
      }
    }
    if (m.error()) return Malformed(b, "function", m);
    for (auto [what, idx] : {std::pair<const char*, int64_t>{"function.name", fn.name},
                             {"function.system_name", fn.system_name},
                             {"function.filename", filename}})
      if (Status st = CheckString(b, what, idx); !st.ok()) return st;
    if (id == 0) return ErrorStatus(At(b) + "function without an id");
    functions[id] = fn;
  }

  for (Bytes b : mapping_msgs) {
    uint64_t id = 0;
    MappingRow mr;
    Decoder m(b);
    for (Field f = m.Next(); f.valid(); f = m.Next()) {
      switch (f.id) {
        case pp::Mapping::kIdFieldNumber:
          id = f.as_uint64();
          break;
        case pp::Mapping::kMemoryStartFieldNumber:
          mr.start = f.as_uint64();
          break;
        case pp::Mapping::kMemoryLimitFieldNumber:
          mr.limit = f.as_uint64();
          break;
        case pp::Mapping::kFileOffsetFieldNumber:
          mr.offset = f.as_uint64();
          break;
        case pp::Mapping::kFilenameFieldNumber:
          mr.filename = f.as_int64();
          break;
        case pp::Mapping::kBuildIdFieldNumber:
          mr.build_id = f.as_int64();
          break;
        default:
          break;
      }
    }
    if (m.error()) return Malformed(b, "mapping", m);
    if (Status st = CheckString(b, "mapping.filename", mr.filename); !st.ok()) return st;
    if (Status st = CheckString(b, "mapping.build_id", mr.build_id); !st.ok()) return st;
    if (id == 0) return ErrorStatus(At(b) + "mapping without an id");
    mappings[id] = mr;
  }

  for (Bytes b : location_msgs) {
    uint64_t id = 0;
    Location loc;
    Decoder m(b);
    for (Field f = m.Next(); f.valid(); f = m.Next()) {
      switch (f.id) {
        case pp::Location::kIdFieldNumber:
          id = f.as_uint64();
          break;
        case pp::Location::kMappingIdFieldNumber:
          loc.mapping_id = f.as_uint64();
          break;
        case pp::Location::kAddressFieldNumber:
          loc.address = f.as_uint64();
          break;
        case pp::Location::kLineFieldNumber: {
          if (f.type != WireType::kLengthDelimited)
            return ErrorStatus(At(b) + "location.line is not a message");
          uint64_t fid = 0;
          Decoder l(f.bytes);
          for (Field g = l.Next(); g.valid(); g = l.Next())
            if (g.id == pp::Line::kFunctionIdFieldNumber) fid = g.as_uint64();
          if (l.error()) return Malformed(f.bytes, "location.line", l);
          if (fid != 0 && !functions.count(fid))
            return ErrorStatus(At(f.bytes) + "location " + std::to_string(id) +
                               " refers to function id " + std::to_string(fid) +
                               ", which the profile does not define");
          if (fid != 0) loc.function_ids.push_back(fid);
          break;
        }
        default:
          break;
      }
    }
    if (m.error()) return Malformed(b, "location", m);
    if (id == 0) return ErrorStatus(At(b) + "location without an id");
    if (!locations.count(id)) location_order.push_back(id);
    locations[id] = std::move(loc);
  }

  samples.reserve(sample_msgs.size());
  for (Bytes b : sample_msgs) {
    Sample s;
    Decoder m(b);
    for (Field f = m.Next(); f.valid(); f = m.Next()) {
      bool ok = true;
      if (f.id == pp::Sample::kLocationIdFieldNumber) ok = AppendVarints(f, &s.location_ids);
      if (f.id == pp::Sample::kValueFieldNumber) ok = AppendVarints(f, &s.values);
      if (f.id == pp::Sample::kLabelFieldNumber) ++labels;
      if (!ok) return ErrorStatus(At(b) + "malformed packed field in sample");
    }
    if (m.error()) return Malformed(b, "sample", m);
    if (s.values.size() != sample_types.size())
      return ErrorStatus(At(b) + "sample has " + std::to_string(s.values.size()) +
                         " values but the profile declares " + std::to_string(sample_types.size()) +
                         " sample types");
    for (uint64_t id : s.location_ids)
      if (!locations.count(id))
        return ErrorStatus(At(b) + "sample refers to location id " + std::to_string(id) +
                           ", which the profile does not define");
    samples.push_back(std::move(s));
  }
  return Status::Ok();
}

}  // namespace

bool LooksLikePprof(const uint8_t* data, size_t size) {
  // Walk the fields that are whole within the first bytes; a field cut at the
  // end of the window proves nothing either way.
  const uint8_t* p = data;
  const uint8_t* end = data + size;
  bool other_than_1 = false, value_type = false, any = false;
  while (p < end) {
    uint64_t tag, len = 0;
    const uint8_t* q = proto::ReadVarint(p, end, &tag);
    if (!q) break;
    uint32_t id = static_cast<uint32_t>(tag >> 3);
    WireType t = static_cast<WireType>(tag & 7);
    if (id == 0 || !ProfileFieldFits(id, t)) return false;
    if (t == WireType::kVarint) {
      q = proto::ReadVarint(q, end, &len);
      if (!q) break;
    } else if (t == WireType::kLengthDelimited) {
      q = proto::ReadVarint(q, end, &len);
      if (!q || len > static_cast<uint64_t>(end - q)) break;
      if (id == pp::Profile::kSampleTypeFieldNumber) {
        if (!IsValueType(Bytes{q, len})) return false;
        // TracePacket fields 1 and 2 are messages: a non-empty payload made
        // of varint fields 1/2 can only be a ValueType.
        if (len > 0) value_type = true;
      }
      q += len;
    } else {
      return false;  // fixed-width fields are not part of a Profile
    }
    any = true;
    if (id != pp::Profile::kSampleTypeFieldNumber) other_than_1 = true;
    p = q;
  }
  return any && (other_than_1 || value_type);
}

Result<PprofImportResult> ImportPprof(TraceContext* ctx, const uint8_t* data, size_t size,
                                      const std::string& scope) {
  Profile prof(data, size);
  if (Status st = prof.Decode(); !st.ok()) return st;

  TraceStorage* s = ctx->storage.get();
  StackProfileTracker* st = ctx->profile_parser->stack_tracker();
  auto str = [&](int64_t idx) -> StringId {
    return idx == 0 ? kNullStringId : s->Intern(prof.strings[static_cast<size_t>(idx)]);
  };

  // pprof picks default_sample_type, else the last sample type.
  size_t default_index = prof.sample_types.size() - 1;
  if (prof.default_sample_type != 0)
    for (size_t i = 0; i < prof.sample_types.size(); ++i)
      if (prof.sample_types[i].first == prof.default_sample_type) default_index = i;
  std::vector<uint32_t> profile_ids;
  StringId scope_id = s->Intern(scope);
  for (size_t i = 0; i < prof.sample_types.size(); ++i) {
    auto [type, unit] = prof.sample_types[i];
    std::string name = "pprof " + std::string(prof.strings[static_cast<size_t>(type)]);
    profile_ids.push_back(s->profile.aggregate_profile.Insert(scope_id, s->Intern(name), str(type),
                                                              str(unit), i == default_index));
  }

  // Frames per location, outermost (the caller inlined into) first.
  std::unordered_map<uint64_t, uint32_t> mapping_ids;
  std::optional<uint32_t> unknown_mapping;
  std::unordered_map<uint64_t, std::vector<uint32_t>> frames;
  for (uint64_t id : prof.location_order) {
    const Location& loc = prof.locations.at(id);
    uint32_t mapping;
    uint64_t rel_pc = loc.address;
    auto m = prof.mappings.find(loc.mapping_id);
    if (m == prof.mappings.end()) {
      if (!unknown_mapping)
        unknown_mapping = st->InternMapping(kNullStringId, 0, 0, 0, 0, 0, s->Intern("[unknown]"));
      mapping = *unknown_mapping;
    } else {
      const MappingRow& mr = m->second;
      auto [it, inserted] = mapping_ids.try_emplace(loc.mapping_id, 0);
      if (inserted) {
        StringId build_id = kNullStringId;
        if (mr.build_id != 0)
          build_id = s->Intern(BuildIdToDisplay(prof.strings[static_cast<size_t>(mr.build_id)]));
        it->second = st->InternMapping(
            build_id, static_cast<int64_t>(mr.offset), static_cast<int64_t>(mr.offset),
            static_cast<int64_t>(mr.start), static_cast<int64_t>(mr.limit), 0, str(mr.filename));
      }
      mapping = it->second;
      if (loc.address >= mr.start) rel_pc = loc.address - mr.start + mr.offset;
    }
    std::vector<uint32_t>& out = frames[id];
    if (loc.function_ids.empty()) {
      out.push_back(
          st->InternFrame(mapping, static_cast<int64_t>(rel_pc), kNullStringId, kNullStringId));
      continue;
    }
    for (auto f = loc.function_ids.rbegin(); f != loc.function_ids.rend(); ++f) {
      const Function& fn = prof.functions.at(*f);
      StringId name = str(fn.name != 0 ? fn.name : fn.system_name);
      out.push_back(st->InternFrame(mapping, static_cast<int64_t>(rel_pc), name, kNullStringId));
    }
  }

  PprofImportResult r;
  r.sample_types = static_cast<uint32_t>(prof.sample_types.size());
  r.samples = prof.samples.size();
  r.labels = prof.labels;
  r.locations = prof.locations.size();
  // (parent callsite + 1, frame) -> callsite: the tracker's ordered map is
  // shared by every profiler; this hash map makes the per-sample walk cheap.
  std::unordered_map<uint64_t, uint32_t> callsites;
  for (const Sample& sample : prof.samples) {
    std::optional<uint32_t> callsite;
    for (auto id = sample.location_ids.rbegin(); id != sample.location_ids.rend(); ++id)
      for (uint32_t frame : frames[*id]) {
        const uint64_t key = (uint64_t{callsite ? *callsite + 1 : 0} << 32) | frame;
        auto [it, inserted] = callsites.try_emplace(key, 0);
        if (inserted) it->second = st->InternCallsite(callsite, frame);
        callsite = it->second;
      }
    for (size_t i = 0; i < sample.values.size(); ++i) {
      int64_t v = static_cast<int64_t>(sample.values[i]);
      if (v == 0) continue;
      s->profile.aggregate_sample.Insert(profile_ids[i], callsite, static_cast<double>(v));
      ++r.sample_rows;
    }
  }
  if (r.labels) s->stats.Increment(Stat::kPprofLabelsIgnored, static_cast<int64_t>(r.labels));
  return r;
}

}  // namespace fathom
