#include "ftrace_source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "gen/perfetto_fields.h"
#include "ring_buffer.h"
#include "util.h"

extern char** environ;

namespace fathom::recorder {
namespace {

using device::FieldKind;
using FE = pf::FtraceEvent;
using FB = pf::FtraceEventBundle;
using CS = pf::FtraceEventBundle::CompactSched;

constexpr size_t kMaxBundleBytes = 512 * 1024;
constexpr size_t kMaxInterned = 64;  // like upstream: keeps interning lookups cheap

std::vector<std::string> ListDir(const std::string& path, bool dirs_only) {
  std::vector<std::string> out;
  if (DIR* d = opendir(path.c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      if (dirs_only && e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) continue;
      out.emplace_back(e->d_name);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

int64_t ReadInt(const uint8_t* p, uint32_t size, bool is_signed) {
  switch (size) {
    case 1:
      return is_signed ? int64_t{static_cast<int8_t>(*p)} : int64_t{*p};
    case 2: {
      uint16_t v;
      memcpy(&v, p, 2);
      return is_signed ? int64_t{static_cast<int16_t>(v)} : int64_t{v};
    }
    case 4: {
      uint32_t v;
      memcpy(&v, p, 4);
      return is_signed ? int64_t{static_cast<int32_t>(v)} : int64_t{v};
    }
    case 8: {
      int64_t v;
      memcpy(&v, p, 8);
      return v;
    }
    default:
      return 0;
  }
}

size_t StrLen(const uint8_t* p, size_t max) {
  const void* z = memchr(p, 0, max);
  return z ? static_cast<size_t>(static_cast<const uint8_t*>(z) - p) : max;
}

// Atrace lives on Android only; its absence on Linux is not an error.
const char* kAtrace = "/system/bin/atrace";

int RunCommand(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

uint32_t FtraceSource::CompactBuffer::Intern(const char* s, size_t max) {
  std::string_view v(s, StrLen(reinterpret_cast<const uint8_t*>(s), max));
  for (size_t i = 0; i < interned.size(); i++)
    if (interned[i] == v) return static_cast<uint32_t>(i);
  interned.emplace_back(v);
  return static_cast<uint32_t>(interned.size() - 1);
}

void FtraceSource::CompactBuffer::Clear() {
  sw_ts.clear(), wk_ts.clear(), sw_state.clear(), sw_pid.clear(), sw_prio.clear();
  wk_pid.clear(), wk_prio.clear(), wk_cpu.clear(), sw_comm.clear(), wk_comm.clear();
  wk_flags.clear(), interned.clear();
  last_sw = last_wk = 0;
}

FtraceSource::FtraceSource(const FtraceSourceConfig& config, device::TraceWriter* writer,
                           uint32_t seq_id, std::string tracefs_root)
    : config_(config),
      writer_(writer),
      seq_id_(seq_id),
      root_(std::move(tracefs_root)),
      fake_root_(!root_.empty()) {}

FtraceSource::~FtraceSource() {
  if (started_) {
    Stop();
  } else {
    // Start() failed half-way: undo what it changed.
    StopAtrace();
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) Write(it->first, it->second);
  }
  for (Cpu& c : cpus_)
    if (c.fd >= 0) close(c.fd);
}

Status FtraceSource::FindRoot() {
  if (!root_.empty()) {
    if (!FileExists(root_ + "/events/header_page"))
      return ErrorStatus("tracefs not found at " + root_ + " (no events/header_page)");
    return Status::Ok();
  }
  for (const char* dir : {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}) {
    std::string d = dir;
    if (FileExists(d + "/events/header_page")) {
      root_ = d;
      return Status::Ok();
    }
    if (access(d.c_str(), X_OK) != 0 && errno == EACCES)
      return ErrorStatus("permission denied: cannot open " + d +
                         ": run as root (Linux: sudo; Android: adb root or a userdebug build)");
  }
  return ErrorStatus(
      "tracefs not mounted at /sys/kernel/tracing or /sys/kernel/debug/tracing: mount it "
      "(as root: mount -t tracefs nodev /sys/kernel/tracing)");
}

void FtraceSource::Write(const std::string& file, std::string_view value) {
  Status st = WriteFile(root_ + "/" + file, value, fake_root_);
  if (!st.ok()) notes_.push_back(st.message());
}

void FtraceSource::SaveAndSet(const std::string& file, std::string_view value) {
  Result<std::string> old = ReadFile(root_ + "/" + file);
  if (old.ok()) {
    std::string v = *old;
    while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
    saved_.emplace_back(file, v);
  }
  Write(file, value);
}

Status FtraceSource::ResolveEvents(std::vector<std::pair<std::string, std::string>>* out) {
  std::vector<std::string> groups = ListDir(root_ + "/events", true);
  auto add = [&](const std::string& g, const std::string& n) {
    auto e = std::make_pair(g, n);
    if (std::find(out->begin(), out->end(), e) == out->end()) out->push_back(e);
  };
  std::vector<std::string> wanted = config_.events;
  if (!config_.atrace_categories.empty() || !config_.atrace_apps.empty())
    wanted.push_back("ftrace/print");  // atrace markers arrive as print events
  for (const std::string& spec : wanted) {
    size_t slash = spec.find('/');
    if (slash == std::string::npos) {
      bool found = false;
      for (const std::string& g : groups) {
        if (FileExists(root_ + "/events/" + g + "/" + spec + "/format")) {
          add(g, spec);
          found = true;
        }
      }
      if (!found) unknown_events_.push_back(spec);
      continue;
    }
    std::string group = spec.substr(0, slash), name = spec.substr(slash + 1);
    if (name == "*") {
      std::vector<std::string> names = ListDir(root_ + "/events/" + group, true);
      size_t before = out->size();
      for (const std::string& n : names)
        if (FileExists(root_ + "/events/" + group + "/" + n + "/format")) add(group, n);
      if (out->size() == before) unknown_events_.push_back(spec);
    } else if (FileExists(root_ + "/events/" + group + "/" + name + "/format")) {
      add(group, name);
    } else {
      unknown_events_.push_back(spec);
    }
  }
  return Status::Ok();
}

void FtraceSource::BuildTranslation(const EventFormat& format) {
  if (format.id >= 65536) return;
  if (events_.size() <= format.id) events_.resize(format.id + 1);
  EventTranslation& t = events_[format.id];
  t.enabled = true;
  t.name = format.name;
  const device::SchemaField* ef = device::FindField(*ftrace_event_msg_, format.name);
  const device::SchemaMessage* msg = nullptr;
  if (ef && ef->kind == FieldKind::kMessage) {
    t.proto_field = ef->number;
    msg = &device::MessageAt(ef->ref);
  } else {
    t.proto_field = FE::kGenericFieldNumber;
  }
  for (const FormatField& f : format.fields) {
    FieldTranslation ft;
    ft.offset = f.offset;
    ft.size = f.size;
    ft.is_signed = f.is_signed;
    ft.data_loc = f.is_data_loc;
    ft.c_string = f.is_char_array;
    ft.pointer = f.is_pointer;
    if (msg) {
      const device::SchemaField* pf_ = device::FindField(*msg, f.name);
      if (!pf_) continue;
      bool proto_string = pf_->kind == FieldKind::kString || pf_->kind == FieldKind::kBytes;
      bool ftrace_string = ft.c_string || ft.data_loc;
      if (proto_string != ftrace_string || pf_->kind == FieldKind::kMessage) continue;
      if (!ftrace_string && ft.size != 1 && ft.size != 2 && ft.size != 4 && ft.size != 8) continue;
      ft.proto_number = pf_->number;
      ft.proto_kind = pf_->kind;
    } else {
      ft.name = f.name;
      if (!ft.c_string && !ft.data_loc && ft.size != 1 && ft.size != 2 && ft.size != 4 &&
          ft.size != 8)
        continue;
    }
    if (f.size == 4 && !f.is_data_loc &&
        (f.name == "pid" || f.name == "prev_pid" || f.name == "next_pid" || f.name == "tgid"))
      t.pid_offsets.push_back(f.offset);
    t.fields.push_back(std::move(ft));
  }
  // compact_sched: offsets of the fields the packed arrays carry.
  auto off = [&](const char* name, uint32_t* o, uint32_t* size = nullptr) {
    const FormatField* f = format.Find(name);
    if (!f) return false;
    *o = f->offset;
    if (size) *size = f->size;
    return true;
  };
  if (format.name == "sched_switch" && format.group == "sched") {
    switch_.id = format.id;
    switch_.ok = off("next_pid", &switch_.next_pid) && off("next_prio", &switch_.next_prio) &&
                 off("next_comm", &switch_.next_comm, &switch_.next_comm_size) &&
                 off("prev_state", &switch_.prev_state, &switch_.prev_state_size);
  } else if (format.name == "sched_waking" && format.group == "sched") {
    waking_.id = format.id;
    waking_.ok = off("pid", &waking_.pid) && off("prio", &waking_.prio) &&
                 off("comm", &waking_.comm, &waking_.comm_size) &&
                 off("target_cpu", &waking_.target_cpu) &&
                 off("common_flags", &waking_.common_flags);
  }
  if (const FormatField* p = format.Find("common_pid")) common_pid_offset_ = p->offset;
  if (const FormatField* p = format.Find("common_flags")) common_flags_offset_ = p->offset;
}

Status FtraceSource::Start() {
  Status st = FindRoot();
  if (!st.ok()) return st;
  ftrace_event_msg_ = device::FindMessage("FtraceEvent");
  Result<std::string> hp = ReadFile(root_ + "/events/header_page");
  if (!hp.ok()) {
    if (hp.status().message().find("ermission") != std::string::npos)
      return ErrorStatus("permission denied reading " + root_ +
                         "/events/header_page: run as root (Linux: sudo; Android: adb root)");
    return hp.status();
  }
  Result<PageHeaderLayout> page = ParseHeaderPage(*hp);
  if (!page.ok()) return page.status();
  page_layout_ = *page;
  // Some kernels' captures lack header_event; its type codes have not changed since 2.6.
  Result<std::string> he = ReadFile(root_ + "/events/header_event");
  if (he.ok() && !he->empty()) {
    Result<EventHeaderLayout> ev = ParseHeaderEvent(*he);
    if (!ev.ok()) return ev.status();
    event_layout_ = *ev;
  }
  std::vector<std::pair<std::string, std::string>> events;
  st = ResolveEvents(&events);
  if (!st.ok()) return st;
  for (const auto& [group, name] : events) {
    Result<std::string> text = ReadFile(root_ + "/events/" + group + "/" + name + "/format");
    Result<EventFormat> format =
        text.ok() ? ParseEventFormat(*text, group) : Result<EventFormat>(text.status());
    if (!format.ok()) {
      failed_events_.push_back(group + "/" + name);
      continue;
    }
    BuildTranslation(*format);
  }

  // tracefs settings, each saved for Stop(). Order as upstream: stop, configure, clear, go.
  if (!fake_root_ && access((root_ + "/tracing_on").c_str(), W_OK) != 0)
    return ErrorStatus("permission denied: cannot write " + root_ +
                       "/tracing_on: run as root (Linux: sudo; Android: adb root)");
  SaveAndSet("tracing_on", "0");
  if (config_.buffer_size_kb) SaveAndSet("buffer_size_kb", std::to_string(config_.buffer_size_kb));
  Result<std::string> clocks = ReadFile(root_ + "/trace_clock");
  if (clocks.ok() && clocks->find("boot") != std::string::npos) {
    std::string current;
    size_t a = clocks->find('['), b = clocks->find(']');
    if (a != std::string::npos && b > a) current = clocks->substr(a + 1, b - a - 1);
    saved_.emplace_back("trace_clock", current);
    Write("trace_clock", "boot");
  } else if (!fake_root_) {
    notes_.push_back("this kernel has no 'boot' trace clock: ftrace timestamps use its default");
  }
  if (!fake_root_) Write("trace", "");  // clears the ring buffers
  for (size_t id = 0; id < events_.size(); id++) {
    if (!events_[id].enabled) continue;
    for (const auto& [group, name] : events) {
      if (name != events_[id].name) continue;
      std::string file = "events/" + group + "/" + name + "/enable";
      Result<std::string> old = ReadFile(root_ + "/" + file);
      Status w = WriteFile(root_ + "/" + file, "1", fake_root_);
      if (!w.ok()) {
        failed_events_.push_back(group + "/" + name);
        events_[id].enabled = false;
        if (w.message().find("permission denied") == 0) return w;
        continue;
      }
      saved_.emplace_back(file, old.ok() && !old->empty() ? old->substr(0, 1) : "0");
    }
  }
  StartAtrace();

  // One reader per CPU directory.
  std::vector<std::string> cpu_dirs = ListDir(root_ + "/per_cpu", true);
  uint32_t max_cpu = 0;
  std::vector<std::pair<uint32_t, std::string>> cpus;
  for (const std::string& d : cpu_dirs) {
    if (d.rfind("cpu", 0) != 0) continue;
    uint32_t n = static_cast<uint32_t>(strtoul(d.c_str() + 3, nullptr, 10));
    cpus.emplace_back(n, d);
    max_cpu = std::max(max_cpu, n);
  }
  if (cpus.empty()) return ErrorStatus("no per_cpu/cpuN/trace_pipe_raw under " + root_);
  cpus_.resize(max_cpu + 1);
  for (const auto& [n, d] : cpus) {
    std::string path = root_ + "/per_cpu/" + d + "/trace_pipe_raw";
    cpus_[n].fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (cpus_[n].fd < 0 && (errno == EACCES || errno == EPERM))
      return ErrorStatus("permission denied: cannot open " + path +
                         ": run as root (Linux: sudo; Android: adb root)");
  }
  page_.resize(page_layout_.page_size());
  Write("tracing_on", "1");  // its original value was saved by the first SaveAndSet
  started_ = true;
  EmitStats(/*end=*/false);
  return Status::Ok();
}

void FtraceSource::StartAtrace() {
  if (config_.atrace_categories.empty() && config_.atrace_apps.empty()) return;
  if (fake_root_ || access(kAtrace, X_OK) != 0) {
    atrace_errors_ = "atrace categories/apps ignored: no " + std::string(kAtrace) +
                     " on this system (Android only)";
    notes_.push_back(atrace_errors_);
    return;
  }
  std::vector<std::string> args = {kAtrace, "--async_start", "--only_userspace"};
  std::string apps;
  for (const std::string& a : config_.atrace_apps) apps += (apps.empty() ? "" : ",") + a;
  if (!apps.empty()) args.insert(args.end(), {"-a", apps});
  for (const std::string& c : config_.atrace_categories) args.push_back(c);
  int rc = RunCommand(args);
  if (rc != 0) {
    atrace_errors_ = "atrace --async_start failed (exit " + std::to_string(rc) + ")";
    notes_.push_back(atrace_errors_);
  } else {
    atrace_started_ = true;
  }
}

void FtraceSource::StopAtrace() {
  if (!atrace_started_) return;
  RunCommand({kAtrace, "--async_stop", "--only_userspace"});
  atrace_started_ = false;
}

void FtraceSource::BeginBundle(uint32_t cpu, bool lost) {
  packet_.Clear();
  packet_.Varint(pf::TracePacket::kTrustedPacketSequenceIdFieldNumber, seq_id_);
  bundle_token_ = packet_.BeginNested(pf::TracePacket::kFtraceEventsFieldNumber);
  packet_.Varint(FB::kCpuFieldNumber, cpu);
  if (lost) packet_.Bool(FB::kLostEventsFieldNumber, true);
  in_bundle_ = true;
}

void FtraceSource::EndBundle() {
  if (!in_bundle_) return;
  if (!compact_.empty()) {
    size_t cs = packet_.BeginNested(FB::kCompactSchedFieldNumber);
    for (const std::string& s : compact_.interned) packet_.String(CS::kInternTableFieldNumber, s);
    packet_.PackedVarints(CS::kSwitchTimestampFieldNumber, compact_.sw_ts);
    packet_.PackedVarints(CS::kSwitchPrevStateFieldNumber, compact_.sw_state);
    packet_.PackedVarints(CS::kSwitchNextPidFieldNumber, compact_.sw_pid);
    packet_.PackedVarints(CS::kSwitchNextPrioFieldNumber, compact_.sw_prio);
    packet_.PackedVarints(CS::kSwitchNextCommIndexFieldNumber, compact_.sw_comm);
    packet_.PackedVarints(CS::kWakingTimestampFieldNumber, compact_.wk_ts);
    packet_.PackedVarints(CS::kWakingPidFieldNumber, compact_.wk_pid);
    packet_.PackedVarints(CS::kWakingTargetCpuFieldNumber, compact_.wk_cpu);
    packet_.PackedVarints(CS::kWakingPrioFieldNumber, compact_.wk_prio);
    packet_.PackedVarints(CS::kWakingCommIndexFieldNumber, compact_.wk_comm);
    packet_.PackedVarints(CS::kWakingCommonFlagsFieldNumber, compact_.wk_flags);
    packet_.EndNested(cs);
    compact_.Clear();
  }
  packet_.EndNested(bundle_token_);
  writer_->AppendPacket(packet_.data());
  in_bundle_ = false;
}

void FtraceSource::DecodeRecord(uint32_t cpu, uint64_t ts, const uint8_t* data, uint32_t size) {
  if (size < 2) return;
  uint16_t id;
  memcpy(&id, data, 2);
  if (id >= events_.size() || !events_[id].enabled) return;
  const EventTranslation& t = events_[id];
  auto fits = [&](uint32_t off, uint32_t n) { return off + n <= size; };
  if (on_pid_) {
    if (fits(common_pid_offset_, 4))
      on_pid_(static_cast<int32_t>(ReadInt(data + common_pid_offset_, 4, true)));
    for (uint32_t off : t.pid_offsets)
      if (fits(off, 4)) on_pid_(static_cast<int32_t>(ReadInt(data + off, 4, true)));
  }
  events_written_++;
  if (config_.compact_sched && switch_.ok && id == switch_.id &&
      fits(switch_.next_comm, switch_.next_comm_size) &&
      fits(switch_.prev_state, switch_.prev_state_size)) {
    compact_.sw_ts.push_back(ts - compact_.last_sw);
    compact_.last_sw = ts;
    compact_.sw_state.push_back(ReadInt(data + switch_.prev_state, switch_.prev_state_size, true));
    compact_.sw_pid.push_back(static_cast<int32_t>(ReadInt(data + switch_.next_pid, 4, true)));
    compact_.sw_prio.push_back(static_cast<int32_t>(ReadInt(data + switch_.next_prio, 4, true)));
    compact_.sw_comm.push_back(compact_.Intern(
        reinterpret_cast<const char*>(data + switch_.next_comm), switch_.next_comm_size));
    return;
  }
  if (config_.compact_sched && waking_.ok && id == waking_.id &&
      fits(waking_.comm, waking_.comm_size) && fits(waking_.target_cpu, 4)) {
    compact_.wk_ts.push_back(ts - compact_.last_wk);
    compact_.last_wk = ts;
    compact_.wk_pid.push_back(static_cast<int32_t>(ReadInt(data + waking_.pid, 4, true)));
    compact_.wk_prio.push_back(static_cast<int32_t>(ReadInt(data + waking_.prio, 4, true)));
    compact_.wk_cpu.push_back(static_cast<int32_t>(ReadInt(data + waking_.target_cpu, 4, true)));
    compact_.wk_flags.push_back(
        static_cast<uint32_t>(ReadInt(data + waking_.common_flags, 1, false)));
    compact_.wk_comm.push_back(
        compact_.Intern(reinterpret_cast<const char*>(data + waking_.comm), waking_.comm_size));
    return;
  }
  (void)cpu;
  size_t ev = packet_.BeginNested(FB::kEventFieldNumber);
  packet_.Varint(FE::kTimestampFieldNumber, ts);
  if (fits(common_pid_offset_, 4))
    packet_.Varint(FE::kPidFieldNumber,
                   static_cast<uint32_t>(ReadInt(data + common_pid_offset_, 4, true)));
  size_t body = packet_.BeginNested(t.proto_field);
  bool generic = t.proto_field == FE::kGenericFieldNumber;
  if (generic) packet_.String(pf::GenericFtraceEvent::kEventNameFieldNumber, t.name);
  for (const FieldTranslation& f : t.fields) {
    std::string_view str;
    bool is_str = false;
    if (f.data_loc) {
      if (!fits(f.offset, 4)) continue;
      uint32_t loc = static_cast<uint32_t>(ReadInt(data + f.offset, 4, false));
      uint32_t off = loc & 0xffff, len = loc >> 16;
      if (!fits(off, len)) continue;
      str = std::string_view(reinterpret_cast<const char*>(data + off), StrLen(data + off, len));
      is_str = true;
    } else if (f.c_string) {
      if (f.offset > size) continue;
      uint32_t max =
          f.size ? std::min(f.size, size - f.offset) : size - f.offset;  // char x[]: to the end
      str = std::string_view(reinterpret_cast<const char*>(data + f.offset),
                             StrLen(data + f.offset, max));
      is_str = true;
    } else if (!fits(f.offset, f.size)) {
      continue;
    }
    int64_t value = is_str ? 0 : ReadInt(data + f.offset, f.size, f.is_signed);
    if (generic) {
      using GF = pf::GenericFtraceEvent::Field;
      size_t g = packet_.BeginNested(pf::GenericFtraceEvent::kFieldFieldNumber);
      packet_.String(GF::kNameFieldNumber, f.name);
      if (is_str)
        packet_.String(GF::kStrValueFieldNumber, str);
      else if (f.is_signed)
        packet_.Int(GF::kIntValueFieldNumber, value);
      else
        packet_.Varint(GF::kUintValueFieldNumber, static_cast<uint64_t>(value));
      packet_.EndNested(g);
    } else if (is_str) {
      packet_.String(f.proto_number, str);
    } else if (f.proto_kind == FieldKind::kZigZag) {
      packet_.ZigZag(f.proto_number, value);
    } else {
      packet_.Int(f.proto_number, value);
    }
  }
  packet_.EndNested(body);
  packet_.EndNested(ev);
}

size_t FtraceSource::Drain() {
  size_t total = 0;
  for (uint32_t cpu = 0; cpu < cpus_.size(); cpu++) {
    Cpu& c = cpus_[cpu];
    if (c.fd < 0) continue;
    for (;;) {
      ssize_t n = read(c.fd, page_.data(), page_.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // EAGAIN (caught up), EOF (a regular file in tests), or error
      total++;
      c.pages++;
      PageInfo info;
      // Peek at the header first: a lost-events page starts a new bundle flagged as such.
      uint64_t commit = LoadLE(page_.data() + page_layout_.commit_offset, page_layout_.commit_size);
      bool lost = commit & kRbMissedEvents;
      if (lost || !in_bundle_ || packet_.size() > kMaxBundleBytes ||
          compact_.interned.size() > kMaxInterned) {
        EndBundle();
        BeginBundle(cpu, lost);
      }
      bool ok =
          ParseRingBufferPage(page_.data(), static_cast<uint32_t>(n), page_layout_, event_layout_,
                              &info, [&](uint64_t ts, const uint8_t* data, uint32_t size) {
                                DecodeRecord(cpu, ts, data, size);
                              });
      if (info.lost_events) {
        c.lost_pages++;
        c.lost_events += info.lost_count;
      }
      if (!ok) c.malformed++;
      if (static_cast<size_t>(n) < page_.size()) break;
    }
    EndBundle();
  }
  return total;
}

void FtraceSource::EmitStats(bool end) {
  using FS = pf::FtraceStats;
  using CPU = pf::FtraceCpuStats;
  packet_.Clear();
  packet_.Varint(pf::TracePacket::kTimestampFieldNumber, static_cast<uint64_t>(BootNs()));
  packet_.Varint(pf::TracePacket::kTrustedPacketSequenceIdFieldNumber, seq_id_);
  size_t s = packet_.BeginNested(pf::TracePacket::kFtraceStatsFieldNumber);
  packet_.Varint(FS::kPhaseFieldNumber, end ? 2 : 1);  // END_OF_TRACE : START_OF_TRACE
  for (uint32_t cpu = 0; cpu < cpus_.size(); cpu++) {
    if (cpus_[cpu].fd < 0) continue;
    size_t c = packet_.BeginNested(FS::kCpuStatsFieldNumber);
    packet_.Varint(CPU::kCpuFieldNumber, cpu);
    // per_cpu/cpuN/stats: "entries: N", "overrun: N", "commit overrun: N", "bytes: N",
    // "dropped events: N", "read events: N".
    Result<std::string> text = ReadFile(root_ + "/per_cpu/cpu" + std::to_string(cpu) + "/stats");
    uint64_t overrun = 0, dropped = 0;
    if (text.ok()) {
      std::string_view rest = *text;
      while (!rest.empty()) {
        size_t nl = rest.find('\n');
        std::string_view line = rest.substr(0, nl);
        rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
        size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        std::string_view key = line.substr(0, colon);
        const char* p = line.data() + colon + 1;
        uint64_t v = ParseU64(&p, line.data() + line.size());
        if (key == "entries")
          packet_.Varint(CPU::kEntriesFieldNumber, v);
        else if (key == "overrun")
          overrun = v;
        else if (key == "commit overrun")
          packet_.Varint(CPU::kCommitOverrunFieldNumber, v);
        else if (key == "bytes")
          packet_.Varint(CPU::kBytesReadFieldNumber, v);
        else if (key == "dropped events")
          dropped = v;
        else if (key == "read events")
          packet_.Varint(CPU::kReadEventsFieldNumber, v);
      }
    }
    // The kernel's counters, or what the pages told us when it keeps none (lost counts).
    packet_.Varint(CPU::kOverrunFieldNumber, std::max(overrun, cpus_[cpu].lost_events));
    packet_.Varint(CPU::kDroppedEventsFieldNumber, dropped);
    packet_.EndNested(c);
  }
  for (const std::string& e : unknown_events_)
    packet_.String(FS::kUnknownFtraceEventsFieldNumber, e);
  for (const std::string& e : failed_events_) packet_.String(FS::kFailedFtraceEventsFieldNumber, e);
  if (!atrace_errors_.empty()) packet_.String(FS::kAtraceErrorsFieldNumber, atrace_errors_);
  uint64_t malformed = 0;
  for (const Cpu& c : cpus_) malformed += c.malformed;
  // FTRACE_STATUS_ABI_INVALID_PAGE_HEADER for pages that did not follow header_page.
  if (malformed) packet_.Varint(FS::kFtraceParseErrorsFieldNumber, 4);
  packet_.Varint(FS::kCpuBufferSizePagesFieldNumber,
                 config_.buffer_size_kb * 1024ull / page_layout_.page_size());
  packet_.EndNested(s);
  writer_->AppendPacket(packet_.data());
}

void FtraceSource::Stop() {
  if (!started_) return;
  // Stop the kernel first so the final drain sees a bounded amount of data.
  Write("tracing_on", "0");
  Drain();
  EmitStats(/*end=*/true);
  StopAtrace();
  for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) Write(it->first, it->second);
  saved_.clear();
  started_ = false;
}

}  // namespace fathom::recorder
