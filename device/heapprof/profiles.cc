#include "device/heapprof/profiles.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "gen/perfetto_fields.h"
#include "proto_writer.h"

namespace fathom::heapprof {

using device::ProtoWriter;

std::string Profiles::AddProcess(pid_t pid, bool from_startup, uint64_t ts) {
  Process& p = processes_[pid];
  p = Process{};
  p.info.pid = pid;
  p.info.from_startup = from_startup;
  ReadMaps(p);
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string stat_line;
  std::getline(stat, stat_line);
  int ppid = 0;
  size_t paren = stat_line.rfind(')');
  if (paren != std::string::npos) sscanf(stat_line.c_str() + paren + 1, " %*c %d", &ppid);

  ProtoWriter w;
  w.Varint(pf::TracePacket::kTimestampFieldNumber, ts);
  w.Varint(pf::TracePacket::kTrustedPacketSequenceIdFieldNumber, kSequenceId);
  size_t tree = w.BeginNested(pf::TracePacket::kProcessTreeFieldNumber);
  size_t proc = w.BeginNested(pf::ProcessTree::kProcessesFieldNumber);
  w.Varint(pf::ProcessTree::Process::kPidFieldNumber, static_cast<uint64_t>(pid));
  w.Varint(pf::ProcessTree::Process::kPpidFieldNumber, static_cast<uint64_t>(ppid));
  for (size_t start = 0; start < cmdline.size();) {
    size_t end = cmdline.find('\0', start);
    if (end == std::string::npos) end = cmdline.size();
    w.String(pf::ProcessTree::Process::kCmdlineFieldNumber, cmdline.substr(start, end - start));
    start = end + 1;
  }
  w.EndNested(proc);
  w.EndNested(tree);
  return w.data();
}

ProcessInfo* Profiles::Info(pid_t pid) {
  auto it = processes_.find(pid);
  return it == processes_.end() ? nullptr : &it->second.info;
}

bool Profiles::ReadMaps(Process& p) {
  std::ifstream in("/proc/" + std::to_string(p.info.pid) + "/maps");
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
    if (perms[2] != 'x') continue;  // only code holds return addresses
    std::string path = path_at > 0 ? line.substr(static_cast<size_t>(path_at)) : "";
    maps.push_back({start, end, offset, path});
  }
  // Keep interned ids of mappings that did not change.
  for (MapEntry& m : maps)
    for (const MapEntry& old : p.maps)
      if (old.start == m.start && old.end == m.end && old.path == m.path) m.iid = old.iid;
  std::sort(maps.begin(), maps.end(),
            [](const MapEntry& a, const MapEntry& b) { return a.start < b.start; });
  p.maps = std::move(maps);
  return true;
}

Profiles::MapEntry* Profiles::FindMap(Process& p, uint64_t pc) {
  auto it = std::upper_bound(p.maps.begin(), p.maps.end(), pc,
                             [](uint64_t v, const MapEntry& m) { return v < m.start; });
  if (it == p.maps.begin()) return nullptr;
  --it;
  return pc < it->end ? &*it : nullptr;
}

uint64_t Profiles::StringIid(const std::string& s) {
  auto [it, added] = string_iids_.emplace(s, string_iids_.size() + 1);
  if (added) {
    ProtoWriter w;
    w.Varint(pf::InternedString::kIidFieldNumber, it->second);
    w.String(pf::InternedString::kStrFieldNumber, s);
    new_strings_.push_back(w.data());
  }
  return it->second;
}

const ElfSymbols& Profiles::Elf(const std::string& path) {
  auto& e = elves_[path];
  if (!e) e = std::make_unique<ElfSymbols>(path);
  return *e;
}

uint64_t Profiles::MappingIid(MapEntry& m) {
  if (m.iid) return m.iid;
  auto key = std::make_tuple(m.path, m.start, m.end, m.offset);
  auto [it, added] = mapping_iids_.emplace(key, mapping_iids_.size() + 1);
  m.iid = it->second;
  if (!added) return m.iid;
  const ElfSymbols& elf = Elf(m.path);
  ProtoWriter w;
  w.Varint(pf::Mapping::kIidFieldNumber, m.iid);
  if (!elf.build_id().empty())
    w.Varint(pf::Mapping::kBuildIdFieldNumber, StringIid(elf.build_id()));
  w.Varint(pf::Mapping::kStartOffsetFieldNumber, 0);
  w.Varint(pf::Mapping::kStartFieldNumber, m.start);
  w.Varint(pf::Mapping::kEndFieldNumber, m.end);
  w.Varint(pf::Mapping::kLoadBiasFieldNumber, elf.load_bias());
  std::vector<uint64_t> parts;
  std::string name = m.path.empty() ? "[anon]" : m.path;
  for (size_t start = 0; start < name.size();) {
    size_t end = name.find('/', start);
    if (end == std::string::npos) end = name.size();
    if (end > start) parts.push_back(StringIid(name.substr(start, end - start)));
    start = end + 1;
  }
  w.PackedVarints(pf::Mapping::kPathStringIdsFieldNumber, parts);
  w.Varint(pf::Mapping::kExactOffsetFieldNumber, m.offset);
  new_mappings_.push_back(w.data());
  return m.iid;
}

uint64_t Profiles::FrameIid(Process& p, uint64_t pc) {
  auto cached = p.frame_of_pc.find(pc);
  if (cached != p.frame_of_pc.end()) return cached->second;
  MapEntry* m = FindMap(p, pc);
  if (!m) {  // new code since we last looked (dlopen): read the maps again
    p.info.map_reparses++;
    ReadMaps(p);
    m = FindMap(p, pc);
  }
  uint64_t mapping, rel_pc;
  std::string name;
  if (m) {
    mapping = MappingIid(*m);
    const ElfSymbols& elf = Elf(m->path);
    // rel_pc in the ELF's own address space, as offline symbolizers expect.
    rel_pc = elf.valid() ? elf.FileOffsetToVaddr(pc - m->start + m->offset) : pc - m->start;
    // pc is a return address: the call is the instruction before it.
    if (elf.valid()) name = elf.Lookup(rel_pc - 1);
  } else {
    if (!unknown_mapping_) {
      MapEntry unknown{0, 0, 0, "[unknown]"};
      unknown_mapping_ = MappingIid(unknown);
    }
    mapping = unknown_mapping_;
    rel_pc = pc;
  }
  auto [it, added] = frame_iids_.emplace(std::make_pair(mapping, rel_pc), frame_iids_.size() + 1);
  if (added) {
    ProtoWriter w;
    w.Varint(pf::Frame::kIidFieldNumber, it->second);
    if (!name.empty()) w.Varint(pf::Frame::kFunctionNameIdFieldNumber, StringIid(name));
    w.Varint(pf::Frame::kMappingIdFieldNumber, mapping);
    w.Varint(pf::Frame::kRelPcFieldNumber, rel_pc);
    new_frames_.push_back(w.data());
  }
  p.frame_of_pc[pc] = it->second;
  return it->second;
}

void Profiles::OnAlloc(pid_t pid, const AllocRecord& rec, const uint64_t* pcs) {
  Process& p = processes_[pid];
  p.info.heap_samples++;
  if (rec.num_frames == 0) p.info.unwinding_errors++;
  std::string_view key(reinterpret_cast<const char*>(pcs), rec.num_frames * sizeof(uint64_t));
  if (p.last_callstack.totals && key == p.last_pcs) {
    Track(p, rec, p.last_callstack.totals);
    return;
  }
  auto cs = p.callstack_of_pcs.find(key);
  if (cs == p.callstack_of_pcs.end()) {
    std::vector<uint64_t> frames;
    for (uint32_t i = rec.num_frames; i-- > 0;)
      frames.push_back(FrameIid(p, pcs[i]));  // root first
    auto [it, added] = callstack_iids_.emplace(frames, callstack_iids_.size() + 1);
    if (added) {
      ProtoWriter w;
      w.Varint(pf::Callstack::kIidFieldNumber, it->second);
      w.PackedVarints(pf::Callstack::kFrameIdsFieldNumber, frames);
      new_callstacks_.push_back(w.data());
    }
    CallstackRef ref{it->second, &p.totals[it->second]};
    cs = p.callstack_of_pcs.emplace(std::string(key), ref).first;
  }
  p.last_pcs.assign(key);
  p.last_callstack = cs->second;
  Track(p, rec, cs->second.totals);
}

void Profiles::Track(Process& p, const AllocRecord& rec, Totals* t) {
  t->alloc_bytes += rec.sampled_bytes;
  t->alloc_count++;
  if (rec.addr == 0) return;  // not from the client (it never samples a failed malloc)
  bool added = false;
  Live& live = p.live.Upsert(rec.addr, &added);
  if (!added) {  // a free we never saw (dropped record): the address is reused
    live.totals->freed_bytes += live.bytes;
    live.totals->free_count++;
  }
  live = Live{t, rec.sampled_bytes};
}

void Profiles::OnFree(pid_t pid, uint64_t addr) { OnFree(processes_[pid], addr); }

void Profiles::OnCodeUnloaded(pid_t pid) {
  Process& p = processes_[pid];
  // A pc may now hold other code: its frame and the stacks through it are looked up
  // again. The callstacks' totals stay where they are, by iid.
  p.frame_of_pc.clear();
  p.callstack_of_pcs.clear();
  p.last_pcs.clear();
  p.last_callstack = CallstackRef{0, nullptr};
  p.info.map_reparses++;
  ReadMaps(p);
}

void Profiles::OnFree(Process& p, uint64_t addr) {
  Live live;
  if (!p.live.Take(addr, &live)) return;
  live.totals->freed_bytes += live.bytes;
  live.totals->free_count++;
}

std::string Profiles::Dump(uint64_t ts) {
  using PP = pf::ProfilePacket;
  ProtoWriter w;
  w.Varint(pf::TracePacket::kTimestampFieldNumber, ts);
  w.Varint(pf::TracePacket::kTrustedPacketSequenceIdFieldNumber, kSequenceId);
  size_t pkt = w.BeginNested(pf::TracePacket::kProfilePacketFieldNumber);
  auto emit = [&](uint32_t field, std::vector<std::string>& items) {
    for (const std::string& m : items) w.Bytes(field, m.data(), m.size());
    items.clear();
  };
  emit(PP::kStringsFieldNumber, new_strings_);
  emit(PP::kMappingsFieldNumber, new_mappings_);
  emit(PP::kFramesFieldNumber, new_frames_);
  emit(PP::kCallstacksFieldNumber, new_callstacks_);
  for (auto& [pid, p] : processes_) {
    using HS = PP::ProcessHeapSamples;
    size_t dump = w.BeginNested(PP::kProcessDumpsFieldNumber);
    w.Varint(HS::kPidFieldNumber, static_cast<uint64_t>(pid));
    w.Bool(HS::kFromStartupFieldNumber, p.info.from_startup);
    if (p.info.disconnected) w.Bool(HS::kDisconnectedFieldNumber, true);
    if (p.info.overruns) w.Bool(HS::kBufferOverranFieldNumber, true);
    if (p.info.corrupted) w.Bool(HS::kBufferCorruptedFieldNumber, true);
    w.Varint(HS::kSamplingIntervalBytesFieldNumber, interval_);
    size_t stats = w.BeginNested(HS::kStatsFieldNumber);
    w.Varint(PP::ProcessStats::kUnwindingErrorsFieldNumber, p.info.unwinding_errors);
    w.Varint(PP::ProcessStats::kHeapSamplesFieldNumber, p.info.heap_samples);
    w.Varint(PP::ProcessStats::kMapReparsesFieldNumber, p.info.map_reparses);
    w.Varint(PP::ProcessStats::kClientSpinlockBlockedUsFieldNumber, p.info.spin_blocked_ns / 1000);
    w.EndNested(stats);
    for (const auto& [callstack, t] : p.totals) {
      size_t s = w.BeginNested(HS::kSamplesFieldNumber);
      w.Varint(PP::HeapSample::kCallstackIdFieldNumber, callstack);
      w.Varint(PP::HeapSample::kSelfAllocatedFieldNumber, t.alloc_bytes);
      w.Varint(PP::HeapSample::kSelfFreedFieldNumber, t.freed_bytes);
      w.Varint(PP::HeapSample::kAllocCountFieldNumber, t.alloc_count);
      w.Varint(PP::HeapSample::kFreeCountFieldNumber, t.free_count);
      w.EndNested(s);
    }
    w.EndNested(dump);
  }
  w.Varint(PP::kIndexFieldNumber, packet_index_++);
  w.EndNested(pkt);
  return w.data();
}

}  // namespace fathom::heapprof
