#include "core/import/profile_stack_tracker.h"

#include "core/import/sequence_state.h"
#include "perfetto/trace/interned_data.pb.h"
#include "perfetto/trace/profiling/profile_common.pb.h"

namespace fathom {

using perfetto::protos::Callstack;
using perfetto::protos::Frame;
using perfetto::protos::InternedData;
using perfetto::protos::InternedString;
using perfetto::protos::Mapping;

std::optional<proto::Bytes> InternedProfileIds::Get(Kind kind, uint64_t iid) const {
  uint32_t field = 0;
  switch (kind) {
    case kFunctionName:
      field = InternedData::kFunctionNamesFieldNumber;
      break;
    case kMappingPath:
      field = InternedData::kMappingPathsFieldNumber;
      break;
    case kBuildId:
      field = InternedData::kBuildIdsFieldNumber;
      break;
    case kFrame:
      field = InternedData::kFramesFieldNumber;
      break;
    case kCallstack:
      field = InternedData::kCallstacksFieldNumber;
      break;
    case kMapping:
      field = InternedData::kMappingsFieldNumber;
      break;
  }
  const proto::Bytes* b = gen_.GetInterned(field, iid);
  if (!b) return std::nullopt;
  return *b;
}

std::string BuildIdToDisplay(std::string_view raw) {
  bool printable = !raw.empty();
  for (char c : raw)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e)
      printable = false;
  return printable ? std::string(raw) : BuildIdToHex(raw);
}

std::string BuildIdToHex(std::string_view raw) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(raw.size() * 2);
  for (char c : raw) {
    out.push_back(kHex[(static_cast<unsigned char>(c) >> 4) & 0xf]);
    out.push_back(kHex[static_cast<unsigned char>(c) & 0xf]);
  }
  return out;
}

namespace {
StringId FrameKindName(TraceStorage* s, uint64_t kind) {
  switch (kind) {
    case Frame::KIND_NATIVE:
      return s->Intern("native");
    case Frame::KIND_KERNEL:
      return s->Intern("kernel");
    case Frame::KIND_INTERPRETED:
      return s->Intern("interpreted");
    case Frame::KIND_JIT:
      return s->Intern("jit");
    case Frame::KIND_GC:
      return s->Intern("gc");
    case Frame::KIND_RUNTIME:
      return s->Intern("runtime");
    default:
      return kNullStringId;
  }
}
}  // namespace

std::optional<std::string_view> StackProfileTracker::ResolveString(const ProfileIdSource& ids,
                                                                   ProfileIdSource::Kind kind,
                                                                   uint64_t iid) {
  auto b = ids.Get(kind, iid);
  if (!b) {
    storage_->stats.Increment(Stat::kStackProfileInvalidStringId);
    return std::nullopt;
  }
  proto::Decoder d(*b);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next())
    if (f.id == InternedString::kStrFieldNumber) return f.as_string();
  return std::string_view();
}

uint32_t StackProfileTracker::InternMapping(StringId build_id, int64_t exact_offset,
                                            int64_t start_offset, int64_t start, int64_t end,
                                            int64_t load_bias, StringId name,
                                            std::optional<uint32_t> owner) {
  auto key = std::make_tuple(owner ? static_cast<int64_t>(*owner) : int64_t{-1}, build_id,
                             exact_offset, start_offset, start, end, load_bias, name);
  auto it = mapping_ids_.find(key);
  if (it != mapping_ids_.end()) return it->second;
  uint32_t id = storage_->profile.stack_profile_mapping.Insert(build_id, exact_offset, start_offset,
                                                               start, end, load_bias, name);
  mapping_ids_.emplace(key, id);
  return id;
}

uint32_t StackProfileTracker::InternFrame(uint32_t mapping, int64_t rel_pc, StringId name,
                                          StringId type) {
  auto key = std::make_tuple(mapping, rel_pc, name, type);
  auto it = frame_ids_.find(key);
  if (it != frame_ids_.end()) return it->second;
  uint32_t id = storage_->profile.stack_profile_frame.Insert(name, mapping, rel_pc, type);
  frame_ids_.emplace(key, id);
  frames_by_mapping_[mapping].push_back(id);
  return id;
}

uint32_t StackProfileTracker::InternCallsite(std::optional<uint32_t> parent, uint32_t frame) {
  auto key = std::make_pair(parent ? static_cast<int64_t>(*parent) : -1, frame);
  auto it = callsite_ids_.find(key);
  if (it != callsite_ids_.end()) return it->second;
  auto& cs = storage_->profile.stack_profile_callsite;
  uint32_t depth = parent ? cs.depth[*parent] + 1 : 0;
  uint32_t id = cs.Insert(depth, parent, frame);
  callsite_ids_.emplace(key, id);
  return id;
}

std::vector<uint32_t> StackProfileTracker::FramesOfMapping(uint32_t mapping) const {
  auto it = frames_by_mapping_.find(mapping);
  return it == frames_by_mapping_.end() ? std::vector<uint32_t>{} : it->second;
}

std::optional<uint32_t> StackProfileTracker::ResolveMapping(const ProfileIdSource& ids,
                                                            Cache& cache, uint64_t iid) {
  auto it = cache.mappings.find(iid);
  if (it != cache.mappings.end()) {
    if (!it->second) storage_->stats.Increment(Stat::kStackProfileInvalidMappingId);
    return it->second;
  }
  auto b = ids.Get(ProfileIdSource::kMapping, iid);
  if (!b) {
    storage_->stats.Increment(Stat::kStackProfileInvalidMappingId);
    return std::nullopt;
  }
  std::optional<uint32_t> id = ParseMapping(ids, *b);
  // Strict sources remember an invalid mapping, counted each time a frame
  // names it (not when it is defined).
  if (id || ids.strict()) cache.mappings.emplace(iid, id);
  return id;
}

std::optional<uint32_t> StackProfileTracker::ParseMapping(const ProfileIdSource& ids,
                                                          proto::Bytes mapping) {
  const bool strict = ids.strict();
  int64_t exact = 0, start_off = 0, start = 0, end = 0, bias = 0;
  // No build id at all reads as "" (as upstream), not NULL.
  StringId build_id = storage_->Intern("");
  std::optional<uint64_t> build_id_iid;
  std::string path;
  bool has_path = false, valid = true;
  auto add_part = [&](uint64_t sid) {
    auto s = ResolveString(ids, ProfileIdSource::kMappingPath, sid);
    if (!s) {
      valid = false;
      return;
    }
    if (has_path) path += "/";
    has_path = true;
    path += *s;
  };
  proto::Decoder d(mapping);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case Mapping::kExactOffsetFieldNumber:
        exact = f.as_int64();
        break;
      case Mapping::kStartOffsetFieldNumber:
        start_off = f.as_int64();
        break;
      case Mapping::kStartFieldNumber:
        start = f.as_int64();
        break;
      case Mapping::kEndFieldNumber:
        end = f.as_int64();
        break;
      case Mapping::kLoadBiasFieldNumber:
        bias = f.as_int64();
        break;
      case Mapping::kBuildIdFieldNumber:
        build_id_iid = f.as_uint64();
        break;
      case Mapping::kPathStringIdsFieldNumber:
        // Repeated scalar: packed or not. The parts are joined by '/' and
        // the path made absolute, so a single "/bin/x" part stays "/bin/x"
        // (upstream: ["a", "/b"] -> "/a//b", ["/a", "b"] -> "/a/b").
        if (f.type == proto::WireType::kLengthDelimited) {
          proto::PackedVarints pv(f.bytes);
          for (uint64_t v; pv.Next(&v);) add_part(v);
        } else {
          add_part(f.as_uint64());
        }
        break;
    }
  }
  // heapprofd's own tables look the build id up even when it is absent (id 0).
  if (build_id_iid || strict) {
    if (auto s = ResolveString(ids, ProfileIdSource::kBuildId, build_id_iid.value_or(0)))
      build_id = storage_->Intern(BuildIdToHex(*s));
    else
      valid = false;
  }
  if (!valid && strict) return std::nullopt;
  if (has_path && (path.empty() || path[0] != '/')) path.insert(0, "/");
  size_t rows_before = storage_->profile.stack_profile_mapping.row_count();
  uint32_t id = InternMapping(build_id, exact, start_off, start, end, bias, storage_->Intern(path),
                              ids.mapping_owner());
  // SELinux keeps symbolizers out of /data/local/tmp, so such a binary can
  // only be symbolized by build id: a new one without is worth a stat.
  bool new_row = storage_->profile.stack_profile_mapping.row_count() > rows_before;
  bool no_build_id = build_id == kNullStringId || storage_->GetString(build_id).empty();
  if (new_row && no_build_id && path.rfind("/data/local/tmp/", 0) == 0)
    storage_->stats.Increment(Stat::kSymbolizationTmpBuildIdNotFound);
  return id;
}

std::optional<uint32_t> StackProfileTracker::ResolveFrame(const ProfileIdSource& ids, Cache& cache,
                                                          uint64_t iid) {
  auto it = cache.frames.find(iid);
  if (it != cache.frames.end()) {
    if (!it->second) storage_->stats.Increment(Stat::kStackProfileInvalidFrameId);
    return it->second;
  }
  auto b = ids.Get(ProfileIdSource::kFrame, iid);
  if (!b) {
    storage_->stats.Increment(Stat::kStackProfileInvalidFrameId);
    return std::nullopt;
  }
  std::optional<uint32_t> id = ParseFrame(ids, cache, *b);
  if (id || ids.strict()) cache.frames.emplace(iid, id);
  return id;
}

std::optional<uint32_t> StackProfileTracker::ParseFrame(const ProfileIdSource& ids, Cache& cache,
                                                        proto::Bytes frame) {
  const bool strict = ids.strict();
  uint64_t name_iid = 0, mapping_iid = 0;
  int64_t rel_pc = 0;
  StringId type = kNullStringId;
  proto::Decoder d(frame);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case Frame::kFunctionNameIdFieldNumber:
        name_iid = f.as_uint64();
        break;
      case Frame::kMappingIdFieldNumber:
        mapping_iid = f.as_uint64();
        break;
      case Frame::kRelPcFieldNumber:
        rel_pc = f.as_int64();
        break;
      case Frame::kKindFieldNumber:
        type = FrameKindName(storage_, f.as_uint64());
        break;
      case Frame::kKindStrFieldNumber:
        type = storage_->Intern(f.as_string());
        break;
    }
  }
  std::optional<uint32_t> mapping;
  if (mapping_iid || strict) mapping = ResolveMapping(ids, cache, mapping_iid);
  if (!mapping) {
    if (strict) return std::nullopt;
    // Frames without a (valid) mapping still need one: use an empty mapping.
    mapping = InternMapping(kNullStringId, 0, 0, 0, 0, 0, storage_->Intern(""));
  }
  StringId name = ids.unnamed_frames_empty() ? storage_->Intern("") : kNullStringId;
  if (name_iid || strict) {
    auto s = ResolveString(ids, ProfileIdSource::kFunctionName, name_iid);
    if (s)
      name = storage_->Intern(*s);
    else if (strict)
      return std::nullopt;
  }
  return InternFrame(*mapping, rel_pc, name, type);
}

std::optional<uint32_t> StackProfileTracker::CallsiteOfFrames(const ProfileIdSource& ids,
                                                              Cache& cache,
                                                              proto::Bytes callstack) {
  // Strict sources drop the whole callstack at its first invalid frame;
  // others leave the frame out.
  const bool strict = ids.strict();
  std::optional<uint32_t> parent;
  bool valid = true;
  proto::Decoder d(callstack);
  auto add = [&](uint64_t frame_iid) {
    if (!valid) return;
    if (auto frame = ResolveFrame(ids, cache, frame_iid))
      parent = InternCallsite(parent, *frame);
    else if (strict)
      valid = false;
  };
  for (proto::Field f = d.Next(); f.valid() && valid; f = d.Next()) {
    if (f.id != Callstack::kFrameIdsFieldNumber) continue;
    if (f.type == proto::WireType::kLengthDelimited) {
      proto::PackedVarints pv(f.bytes);
      for (uint64_t v; valid && pv.Next(&v);) add(v);
    } else {
      add(f.as_uint64());
    }
  }
  if (!valid) return std::nullopt;
  return parent;
}

std::optional<uint32_t> StackProfileTracker::ResolveCallstack(const ProfileIdSource& ids,
                                                              const void* cache_key, uint64_t iid) {
  Cache& cache = caches_[cache_key];
  auto it = cache.callstacks.find(iid);
  if (it != cache.callstacks.end()) {
    // As upstream, a sample naming an invalid heapprofd callstack is counted
    // (and looked for in vain among the interned data).
    if (!it->second && ids.strict()) {
      storage_->stats.Increment(Stat::kStackProfileInvalidCallstackId);
      storage_->stats.Increment(Stat::kInternedDataErrors);
    }
    return it->second;
  }
  std::optional<uint32_t> result;
  if (auto b = ids.Get(ProfileIdSource::kCallstack, iid)) {
    result = CallsiteOfFrames(ids, cache, *b);
  } else {
    storage_->stats.Increment(Stat::kStackProfileInvalidCallstackId);
    if (ids.missing_is_interned_error()) storage_->stats.Increment(Stat::kInternedDataErrors);
  }
  cache.callstacks.emplace(iid, result);
  return result;
}

void StackProfileTracker::Preresolve(const ProfileIdSource& ids, const void* cache_key,
                                     ProfileIdSource::Kind kind, uint64_t iid) {
  Cache& cache = caches_[cache_key];
  switch (kind) {
    case ProfileIdSource::kMapping:
      if (!cache.mappings.count(iid)) ResolveMapping(ids, cache, iid);
      break;
    case ProfileIdSource::kFrame:
      if (!cache.frames.count(iid)) ResolveFrame(ids, cache, iid);
      break;
    case ProfileIdSource::kCallstack:
      if (!cache.callstacks.count(iid)) ResolveCallstack(ids, cache_key, iid);
      break;
    default:
      break;
  }
}

std::optional<uint32_t> StackProfileTracker::ResolveCallstackMessage(const ProfileIdSource& ids,
                                                                     const void* cache_key,
                                                                     proto::Bytes callstack) {
  return CallsiteOfFrames(ids, caches_[cache_key], callstack);
}

void StackProfileTracker::ClearCache(const void* cache_key) { caches_.erase(cache_key); }

}  // namespace fathom
