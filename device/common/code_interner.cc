#include "code_interner.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>

#include "gen/perfetto_fields.h"
#include "proto_writer.h"

namespace fathom::device {

bool CodeInterner::ReadMaps(ProcessCode& p) {
  std::ifstream in("/proc/" + std::to_string(p.pid) + "/maps");
  if (!in) return false;
  std::vector<MapEntry> maps;
  std::string line;
  while (std::getline(in, line)) {
    uint64_t start, end, offset;
    char perms[8] = {};
    int path_at = 0;
    if (sscanf(line.c_str(), "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &start, &end,
               perms, &offset, &path_at) < 4)
      continue;
    if (perms[2] != 'x') continue;  // only code holds program counters
    std::string path = path_at > 0 ? line.substr(static_cast<size_t>(path_at)) : "";
    maps.push_back({start, end, offset, path});
  }
  for (MapEntry& m : maps)
    for (const MapEntry& old : p.maps)
      if (old.start == m.start && old.end == m.end && old.path == m.path) m.iid = old.iid;
  std::sort(maps.begin(), maps.end(),
            [](const MapEntry& a, const MapEntry& b) { return a.start < b.start; });
  p.maps = std::move(maps);
  return true;
}

CodeInterner::MapEntry* CodeInterner::FindMap(ProcessCode& p, uint64_t pc) {
  auto it = std::upper_bound(p.maps.begin(), p.maps.end(), pc,
                             [](uint64_t v, const MapEntry& m) { return v < m.start; });
  if (it == p.maps.begin()) return nullptr;
  --it;
  return pc < it->end ? &*it : nullptr;
}

uint64_t CodeInterner::StringIid(StringTable table, const std::string& s) {
  auto [it, added] = string_iids_.emplace(std::make_pair(int{table}, s), string_iids_.size() + 1);
  if (added) {
    ProtoWriter w;
    w.Varint(pf::InternedString::kIidFieldNumber, it->second);
    w.String(pf::InternedString::kStrFieldNumber, s);
    new_strings_[table].push_back(w.data());
  }
  return it->second;
}

const ElfSymbols& CodeInterner::Elf(const std::string& path) {
  auto& e = elves_[path];
  if (!e) e = std::make_unique<ElfSymbols>(path);
  return *e;
}

uint64_t CodeInterner::MappingIid(MapEntry& m) {
  if (m.iid) return m.iid;
  auto key = std::make_tuple(m.path, m.start, m.end, m.offset);
  auto [it, added] = mapping_iids_.emplace(key, mapping_iids_.size() + 1);
  m.iid = it->second;
  if (!added) return m.iid;
  // Pseudo-paths ("[vdso]", "[kernel.kallsyms]") name no file to read.
  bool file = !m.path.empty() && m.path[0] == '/';
  const ElfSymbols* elf = file ? &Elf(m.path) : nullptr;
  ProtoWriter w;
  w.Varint(pf::Mapping::kIidFieldNumber, m.iid);
  std::string build_id = elf ? elf->build_id() : "";
  if (!build_id.empty() || name_empty_strings_)
    w.Varint(pf::Mapping::kBuildIdFieldNumber, StringIid(kBuildIds, build_id));
  w.Varint(pf::Mapping::kStartOffsetFieldNumber, 0);
  w.Varint(pf::Mapping::kStartFieldNumber, m.start);
  w.Varint(pf::Mapping::kEndFieldNumber, m.end);
  w.Varint(pf::Mapping::kLoadBiasFieldNumber, elf ? elf->load_bias() : 0);
  std::vector<uint64_t> parts;
  std::string name = m.path.empty() ? "[anon]" : m.path;
  for (size_t start = 0; start < name.size();) {
    size_t end = name.find('/', start);
    if (end == std::string::npos) end = name.size();
    if (end > start) parts.push_back(StringIid(kMappingPaths, name.substr(start, end - start)));
    start = end + 1;
  }
  // Not packed: the field is a plain proto2 repeated field, and upstream's reader
  // takes only the unpacked form.
  for (uint64_t part : parts) w.Varint(pf::Mapping::kPathStringIdsFieldNumber, part);
  w.Varint(pf::Mapping::kExactOffsetFieldNumber, m.offset);
  new_mappings_.push_back(w.data());
  return m.iid;
}

uint64_t CodeInterner::AddFrame(uint64_t mapping, uint64_t rel_pc, const std::string& name) {
  auto [it, added] = frame_iids_.emplace(std::make_pair(mapping, rel_pc), frame_iids_.size() + 1);
  if (added) {
    ProtoWriter w;
    w.Varint(pf::Frame::kIidFieldNumber, it->second);
    if (!name.empty() || name_empty_strings_)
      w.Varint(pf::Frame::kFunctionNameIdFieldNumber, StringIid(kFunctionNames, name));
    w.Varint(pf::Frame::kMappingIdFieldNumber, mapping);
    w.Varint(pf::Frame::kRelPcFieldNumber, rel_pc);
    new_frames_.push_back(w.data());
  }
  return it->second;
}

uint64_t CodeInterner::FrameIid(ProcessCode& p, uint64_t pc, bool return_address) {
  auto cached = p.frame_of_pc.find(pc);
  if (cached != p.frame_of_pc.end()) return cached->second;
  MapEntry* m = FindMap(p, pc);
  if (!m) {
    p.map_reparses++;
    ReadMaps(p);
    m = FindMap(p, pc);
  }
  uint64_t mapping, rel_pc;
  std::string name;
  if (m) {
    mapping = MappingIid(*m);
    bool file = !m->path.empty() && m->path[0] == '/';
    const ElfSymbols* elf = file ? &Elf(m->path) : nullptr;
    bool valid = elf && elf->valid();
    // rel_pc in the ELF's own address space, as offline symbolizers expect.
    rel_pc = valid ? elf->FileOffsetToVaddr(pc - m->start + m->offset) : pc - m->start;
    // A return address follows its call: the call names the frame.
    if (valid) name = elf->Lookup(return_address ? rel_pc - 1 : rel_pc);
  } else {
    if (!unknown_mapping_) {
      MapEntry unknown{0, 0, 0, "[unknown]"};
      unknown_mapping_ = MappingIid(unknown);
    }
    mapping = unknown_mapping_;
    rel_pc = pc;
  }
  uint64_t iid = AddFrame(mapping, rel_pc, name);
  p.frame_of_pc[pc] = iid;
  return iid;
}

uint64_t CodeInterner::KernelFrameIid(uint64_t pc, const std::string& name) {
  if (!kernel_mapping_) {
    MapEntry kernel{0, 0, 0, "[kernel.kallsyms]"};
    kernel_mapping_ = MappingIid(kernel);
  }
  return AddFrame(kernel_mapping_, pc, name);
}

uint64_t CodeInterner::CallstackIid(const std::vector<uint64_t>& frames) {
  auto [it, added] = callstack_iids_.emplace(frames, callstack_iids_.size() + 1);
  if (added) {
    ProtoWriter w;
    w.Varint(pf::Callstack::kIidFieldNumber, it->second);
    for (uint64_t frame : frames) w.Varint(pf::Callstack::kFrameIdsFieldNumber, frame);
    new_callstacks_.push_back(w.data());
  }
  return it->second;
}

void CodeInterner::ForgetCode(ProcessCode& p) {
  p.frame_of_pc.clear();
  p.map_reparses++;
  ReadMaps(p);
}

bool CodeInterner::has_new() const {
  for (const auto& s : new_strings_)
    if (!s.empty()) return true;
  return !new_mappings_.empty() || !new_frames_.empty() || !new_callstacks_.empty();
}

std::vector<std::string> CodeInterner::TakeStrings(StringTable table) {
  return std::exchange(new_strings_[table], {});
}

}  // namespace fathom::device
