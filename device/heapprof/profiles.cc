#include "device/heapprof/profiles.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "clock_snapshot.h"
#include "gen/perfetto_fields.h"
#include "proto_writer.h"

namespace fathom::heapprof {

using device::ProtoWriter;

std::string Profiles::AddProcess(pid_t pid, bool from_startup, uint64_t ts) {
  Process& p = processes_[pid];
  p = Process{};
  p.info.pid = pid;
  p.info.from_startup = from_startup;
  p.code.pid = pid;
  code_.ReadMaps(p.code);
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
  // Said outright: readers take a ProfilePacket's clock to be MONOTONIC_COARSE otherwise,
  // and with no clock snapshot in the file they drop the dump.
  w.Varint(pf::TracePacket::kTimestampClockIdFieldNumber, device::kClockBoottime);
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
      frames.push_back(code_.FrameIid(p.code, pcs[i]));  // root first
    uint64_t iid = code_.CallstackIid(frames);
    CallstackRef ref{iid, &p.totals[iid]};
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
  p.callstack_of_pcs.clear();
  p.last_pcs.clear();
  p.last_callstack = CallstackRef{0, nullptr};
  code_.ForgetCode(p.code);
}

void Profiles::OnFree(Process& p, uint64_t addr) {
  Live live;
  if (!p.live.Take(addr, &live)) return;
  live.totals->freed_bytes += live.bytes;
  live.totals->free_count++;
}

std::string Profiles::Dump(uint64_t ts, uint64_t coarse_ts) {
  using PP = pf::ProfilePacket;
  ProtoWriter w;
  w.Varint(pf::TracePacket::kTimestampFieldNumber, ts);
  // Said outright: readers take a ProfilePacket's clock to be MONOTONIC_COARSE otherwise,
  // and with no clock snapshot in the file they drop the dump.
  w.Varint(pf::TracePacket::kTimestampClockIdFieldNumber, device::kClockBoottime);
  w.Varint(pf::TracePacket::kTrustedPacketSequenceIdFieldNumber, kSequenceId);
  size_t pkt = w.BeginNested(pf::TracePacket::kProfilePacketFieldNumber);
  // One string table in a ProfilePacket: names, build ids and path parts alike.
  using CI = device::CodeInterner;
  auto keep = [&](uint32_t field, std::vector<std::string> fresh) {
    std::vector<std::string>& all = tables_[field];
    all.insert(all.end(), std::make_move_iterator(fresh.begin()),
               std::make_move_iterator(fresh.end()));
  };
  for (CI::StringTable t : {CI::kFunctionNames, CI::kBuildIds, CI::kMappingPaths})
    keep(PP::kStringsFieldNumber, code_.TakeStrings(t));
  keep(PP::kMappingsFieldNumber, code_.TakeMappings());
  keep(PP::kFramesFieldNumber, code_.TakeFrames());
  keep(PP::kCallstacksFieldNumber, code_.TakeCallstacks());
  // The dump's own tables: the previous dumps' are gone for the reader.
  for (uint32_t field : {PP::kStringsFieldNumber, PP::kMappingsFieldNumber, PP::kFramesFieldNumber,
                         PP::kCallstacksFieldNumber})
    for (const std::string& m : tables_[field]) w.Bytes(field, m.data(), m.size());
  for (auto& [pid, p] : processes_) {
    using HS = PP::ProcessHeapSamples;
    size_t dump = w.BeginNested(PP::kProcessDumpsFieldNumber);
    w.Varint(HS::kPidFieldNumber, static_cast<uint64_t>(pid));
    w.Bool(HS::kFromStartupFieldNumber, p.info.from_startup);
    if (p.info.disconnected) w.Bool(HS::kDisconnectedFieldNumber, true);
    if (p.info.overruns) w.Bool(HS::kBufferOverranFieldNumber, true);
    if (p.info.corrupted) w.Bool(HS::kBufferCorruptedFieldNumber, true);
    w.Varint(HS::kTimestampFieldNumber, coarse_ts);
    w.Varint(HS::kSamplingIntervalBytesFieldNumber, interval_);
    size_t stats = w.BeginNested(HS::kStatsFieldNumber);
    w.Varint(PP::ProcessStats::kUnwindingErrorsFieldNumber, p.info.unwinding_errors);
    w.Varint(PP::ProcessStats::kHeapSamplesFieldNumber, p.info.heap_samples);
    w.Varint(PP::ProcessStats::kMapReparsesFieldNumber, p.code.map_reparses);
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
