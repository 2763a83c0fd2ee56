// fathom-tracegen: writes a large, realistic-looking Perfetto trace for load
// benchmarks, streaming packet by packet (memory stays flat at any size).
//
//   fathom-tracegen --out /tmp/t.pftrace --size-mb 1000 [--compact] [--sched-only] [--seed N]
//                   [--cpus 8] [--processes 200]
//
// Content, modelled on an Android/Linux system trace: a clock snapshot, a
// ProcessTree of hundreds of processes/threads, then per-CPU ftrace bundles
// (sched_switch + sched_waking in full FtraceEvent form, or compact_sched with
// --compact; cpu_idle around idle; cpu_frequency; atrace print B/E/C markers),
// and periodic ProcessStats / SysStats packets. --sched-only leaves out all
// but sched_switch and sched_waking (to measure the sched path alone).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "perfetto/trace/trace.pb.h"

namespace {

using perfetto::protos::FtraceEvent;
using perfetto::protos::FtraceEventBundle;
using perfetto::protos::TracePacket;

struct Options {
  std::string out;
  uint64_t size_mb = 100;
  bool compact = false;
  bool sched_only = false;  // only sched_switch + sched_waking (no idle, freq, atrace)
  uint64_t seed = 1;
  int cpus = 8;
  int processes = 200;
};

struct Thread {
  int32_t tid;
  int32_t tgid;
  std::string comm;
  int depth = 0;  // open atrace slices
};

// Buffered writer of the outer Trace framing (field 1, length-delimited).
class TraceWriter {
 public:
  explicit TraceWriter(FILE* f) : f_(f) { setvbuf(f_, nullptr, _IOFBF, 4 << 20); }
  void Write(const TracePacket& p) {
    p.SerializeToString(&buf_);
    uint8_t hdr[11];
    size_t n = 0;
    hdr[n++] = 0x0A;
    uint64_t len = buf_.size();
    do {
      uint8_t b = len & 0x7f;
      len >>= 7;
      hdr[n++] = len ? (b | 0x80) : b;
    } while (len);
    fwrite(hdr, 1, n, f_);
    fwrite(buf_.data(), 1, buf_.size(), f_);
    bytes_ += n + buf_.size();
    ++packets_;
  }
  uint64_t bytes() const { return bytes_; }
  uint64_t packets() const { return packets_; }

 private:
  FILE* f_;
  std::string buf_;
  uint64_t bytes_ = 0;
  uint64_t packets_ = 0;
};

const char* kAppNames[] = {"com.android.systemui",
                           "com.google.android.gms",
                           "surfaceflinger",
                           "system_server",
                           "com.example.mail",
                           "com.example.maps",
                           "com.example.camera",
                           "media.codec",
                           "logd",
                           "com.example.browser",
                           "kworker",
                           "com.example.music"};
const char* kThreadNames[] = {
    "main",   "RenderThread", "HwBinder:1",   "binder:2", "Jit thread pool", "FinalizerDaemon",
    "worker", "GLThread",     "AsyncTask #1", "OkHttp"};
const char* kSliceNames[] = {
    "Choreographer#doFrame", "traversal",       "measure", "layout", "draw", "inflate",
    "binder transaction",    "Lock contention", "GC",      "decode"};
const char* kCounterNames[] = {"aq:pending", "fps", "queued_buffers", "vsync", "mem.heap"};
const uint32_t kFreqs[] = {300000, 576000, 768000, 1017600, 1248000, 1497600, 1804800, 2208000};

class Generator {
 public:
  Generator(const Options& o, TraceWriter* w) : o_(o), w_(w), rng_(o.seed) {}

  void Run() {
    const uint64_t target = o_.size_mb << 20;
    WriteClockSnapshot();
    WriteProcessTree();
    cur_.assign(o_.cpus, nullptr);
    freq_.assign(o_.cpus, 0);
    uint64_t window = 0;
    while (w_->bytes() < target) {
      for (int cpu = 0; cpu < o_.cpus && w_->bytes() < target; ++cpu) WriteBundle(cpu);
      now_ += kWindowNs;
      if (++window % 20 == 0) {  // every 100 ms
        WriteProcessStats();
        WriteSysStats();
      }
    }
  }

 private:
  static constexpr int64_t kWindowNs = 5'000'000;

  uint64_t Rand(uint64_t n) { return rng_() % n; }
  Thread* RandomThread() { return &threads_[Rand(threads_.size())]; }

  void WriteClockSnapshot() {
    TracePacket p;
    p.set_timestamp(now_);
    auto* cs = p.mutable_clock_snapshot();
    const std::pair<uint32_t, uint64_t> clocks[] = {
        {6, static_cast<uint64_t>(now_)},                  // BOOTTIME
        {3, static_cast<uint64_t>(now_) - 5'000'000'000},  // MONOTONIC (suspended 5 s)
        {1, 1'700'000'000'000'000'000ull}};                // REALTIME
    for (auto [id, ts] : clocks) {
      auto* c = cs->add_clocks();
      c->set_clock_id(id);
      c->set_timestamp(ts);
    }
    p.set_trusted_packet_sequence_id(1);
    w_->Write(p);
  }

  void WriteProcessTree() {
    TracePacket p;
    p.set_timestamp(now_);
    p.set_trusted_packet_sequence_id(2);
    auto* tree = p.mutable_process_tree();
    int32_t next_pid = 300;
    for (int i = 0; i < o_.processes; ++i) {
      int32_t pid = next_pid;
      next_pid += 1 + static_cast<int32_t>(Rand(20));
      std::string name = kAppNames[i % std::size(kAppNames)];
      if (i >= static_cast<int>(std::size(kAppNames)))
        name.append(1, ':').append(std::to_string(i));
      auto* proc = tree->add_processes();
      proc->set_pid(pid);
      proc->set_ppid(i == 0 ? 1 : 300);
      proc->add_cmdline(name);
      proc->set_uid(10000 + i);
      threads_.push_back({pid, pid, name.substr(0, 15)});
      int nthreads = 1 + static_cast<int>(Rand(6));
      for (int t = 0; t < nthreads; ++t) {
        int32_t tid = next_pid++;
        std::string tname = kThreadNames[Rand(std::size(kThreadNames))];
        auto* th = tree->add_threads();
        th->set_tid(tid);
        th->set_tgid(pid);
        th->set_name(tname);
        threads_.push_back({tid, pid, tname});
      }
    }
    w_->Write(p);
  }

  // The idle task is represented by nullptr.
  void WriteBundle(int cpu) {
    TracePacket& p = packet_;
    p.Clear();
    p.set_trusted_packet_sequence_id(3 + cpu);
    FtraceEventBundle* b = p.mutable_ftrace_events();
    b->set_cpu(cpu);
    FtraceEventBundle::CompactSched* cs = o_.compact ? b->mutable_compact_sched() : nullptr;
    intern_.clear();
    uint64_t last_switch = 0, last_waking = 0;
    int64_t t = now_ + static_cast<int64_t>(Rand(50'000));
    while (t < now_ + kWindowNs) {
      Thread* cur = cur_[cpu];
      uint64_t r = o_.sched_only ? 0 : Rand(100);
      if (r < 40) {
        Thread* next = Rand(10) == 0 ? nullptr : RandomThread();
        if (next == cur) next = nullptr;
        if (next) {
          // The wakee is woken first (by whatever runs here), then scheduled.
          if (cs) {
            cs->add_waking_timestamp(static_cast<uint64_t>(t) - last_waking);
            last_waking = static_cast<uint64_t>(t);
            cs->add_waking_pid(next->tid);
            cs->add_waking_target_cpu(cpu);
            cs->add_waking_prio(120);
            cs->add_waking_comm_index(Intern(cs, next->comm));
            cs->add_waking_common_flags(1);
          } else {
            FtraceEvent* e = NewEvent(b, t, cur);
            auto* wk = e->mutable_sched_waking();
            wk->set_comm(next->comm);
            wk->set_pid(next->tid);
            wk->set_prio(120);
            wk->set_success(1);
            wk->set_target_cpu(cpu);
          }
          t += 2'000;
        }
        if (!cur && !o_.sched_only) AddCpuIdle(b, t, cpu, 4294967295u);
        if (cs) {
          cs->add_switch_timestamp(static_cast<uint64_t>(t) - last_switch);
          last_switch = static_cast<uint64_t>(t);
          cs->add_switch_prev_state(cur && Rand(3) == 0 ? 1 : 0);
          cs->add_switch_next_pid(next ? next->tid : 0);
          cs->add_switch_next_prio(next ? 120 : 120);
          cs->add_switch_next_comm_index(
              Intern(cs, next ? next->comm : "swapper/" + std::to_string(cpu)));
        } else {
          FtraceEvent* e = NewEvent(b, t, cur);
          auto* sw = e->mutable_sched_switch();
          sw->set_prev_comm(cur ? cur->comm : "swapper/" + std::to_string(cpu));
          sw->set_prev_pid(cur ? cur->tid : 0);
          sw->set_prev_prio(120);
          sw->set_prev_state(cur && Rand(3) == 0 ? 1 : 0);
          sw->set_next_comm(next ? next->comm : "swapper/" + std::to_string(cpu));
          sw->set_next_pid(next ? next->tid : 0);
          sw->set_next_prio(120);
        }
        cur_[cpu] = next;
        if (!next && !o_.sched_only) AddCpuIdle(b, t + 1'000, cpu, static_cast<uint32_t>(Rand(3)));
      } else if (r < 75 && cur) {
        // atrace slices from the running thread, nested up to 4 deep.
        FtraceEvent* e = NewEvent(b, t, cur);
        auto* pr = e->mutable_print();
        pr->set_ip(0xffffff8008a3c2d0ull);
        if (cur->depth < 4 && (cur->depth == 0 || Rand(2) == 0)) {
          ++cur->depth;
          pr->set_buf("B|" + std::to_string(cur->tgid) + "|" +
                      kSliceNames[Rand(std::size(kSliceNames))] + "\n");
        } else {
          --cur->depth;
          pr->set_buf("E|" + std::to_string(cur->tgid) + "\n");
        }
      } else if (r < 85 && cur) {
        FtraceEvent* e = NewEvent(b, t, cur);
        e->mutable_print()->set_buf("C|" + std::to_string(cur->tgid) + "|" +
                                    kCounterNames[Rand(std::size(kCounterNames))] + "|" +
                                    std::to_string(Rand(64)) + "\n");
      } else if (r < 90) {
        uint32_t f = kFreqs[Rand(std::size(kFreqs))];
        if (f != freq_[cpu]) {
          freq_[cpu] = f;
          auto* cf = NewEvent(b, t, cur)->mutable_cpu_frequency();
          cf->set_state(f);
          cf->set_cpu_id(cpu);
        }
      }
      t += 5'000 + static_cast<int64_t>(Rand(60'000));
    }
    w_->Write(p);
  }

  FtraceEvent* NewEvent(FtraceEventBundle* b, int64_t ts, const Thread* cur) {
    FtraceEvent* e = b->add_event();
    e->set_timestamp(static_cast<uint64_t>(ts));
    e->set_pid(cur ? cur->tid : 0);
    return e;
  }

  void AddCpuIdle(FtraceEventBundle* b, int64_t ts, int cpu, uint32_t state) {
    auto* ci = NewEvent(b, ts, nullptr)->mutable_cpu_idle();
    ci->set_state(state);
    ci->set_cpu_id(cpu);
  }

  uint32_t Intern(FtraceEventBundle::CompactSched* cs, const std::string& s) {
    for (size_t i = 0; i < intern_.size(); ++i)
      if (intern_[i] == s) return static_cast<uint32_t>(i);
    intern_.push_back(s);
    cs->add_intern_table(s);
    return static_cast<uint32_t>(intern_.size() - 1);
  }

  void WriteProcessStats() {
    TracePacket p;
    p.set_timestamp(now_);
    p.set_trusted_packet_sequence_id(2);
    auto* ps = p.mutable_process_stats();
    for (int i = 0; i < 40; ++i) {
      const Thread& t = threads_[Rand(threads_.size())];
      auto* proc = ps->add_processes();
      proc->set_pid(t.tgid);
      proc->set_vm_size_kb(1'000'000 + Rand(4'000'000));
      proc->set_vm_rss_kb(20'000 + Rand(300'000));
      proc->set_rss_anon_kb(10'000 + Rand(200'000));
      proc->set_rss_file_kb(5'000 + Rand(100'000));
      proc->set_oom_score_adj(static_cast<int64_t>(Rand(1000)));
    }
    w_->Write(p);
  }

  void WriteSysStats() {
    TracePacket p;
    p.set_timestamp(now_);
    p.set_trusted_packet_sequence_id(2);
    auto* ss = p.mutable_sys_stats();
    const std::pair<perfetto::protos::MeminfoCounters, uint64_t> mem[] = {
        {perfetto::protos::MEMINFO_MEM_TOTAL, 7'800'000},
        {perfetto::protos::MEMINFO_MEM_FREE, 300'000 + Rand(1'000'000)},
        {perfetto::protos::MEMINFO_CACHED, 1'000'000 + Rand(2'000'000)}};
    for (auto [k, v] : mem) {
      auto* m = ss->add_meminfo();
      m->set_key(k);
      m->set_value(v);
    }
    for (int cpu = 0; cpu < o_.cpus; ++cpu) {
      auto* c = ss->add_cpu_stat();
      c->set_cpu_id(cpu);
      c->set_user_ns(static_cast<uint64_t>(now_) / 3 + Rand(1000));
      c->set_system_mode_ns(static_cast<uint64_t>(now_) / 7);
      c->set_idle_ns(static_cast<uint64_t>(now_) / 2);
    }
    w_->Write(p);
  }

  Options o_;
  TraceWriter* w_;
  std::mt19937_64 rng_;
  int64_t now_ = 100'000'000'000;  // 100 s after boot
  std::vector<Thread> threads_;
  std::vector<Thread*> cur_;
  std::vector<uint32_t> freq_;
  std::vector<std::string> intern_;
  TracePacket packet_;  // reused: keeps its allocations between bundles
};

int Usage() {
  fprintf(stderr,
          "usage: fathom-tracegen --out PATH [--size-mb N] [--compact] [--sched-only] [--seed N] "
          "[--cpus N] "
          "[--processes N]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--compact") {
      o.compact = true;
    } else if (a == "--sched-only") {
      o.sched_only = true;
    } else if ((a == "--out" || a == "-o") && (v = next())) {
      o.out = v;
    } else if (a == "--size-mb" && (v = next())) {
      o.size_mb = strtoull(v, nullptr, 10);
    } else if (a == "--seed" && (v = next())) {
      o.seed = strtoull(v, nullptr, 10);
    } else if (a == "--cpus" && (v = next())) {
      o.cpus = atoi(v);
    } else if (a == "--processes" && (v = next())) {
      o.processes = atoi(v);
    } else {
      return Usage();
    }
  }
  if (o.out.empty() || o.cpus < 1 || o.cpus > 256 || o.processes < 1) return Usage();
  FILE* f = fopen(o.out.c_str(), "wb");
  if (!f) {
    perror(o.out.c_str());
    return 1;
  }
  TraceWriter w(f);
  Generator(o, &w).Run();
  if (fclose(f) != 0) {
    perror(o.out.c_str());
    return 1;
  }
  printf("%s: %llu bytes, %llu packets (%s)\n", o.out.c_str(),
         static_cast<unsigned long long>(w.bytes()), static_cast<unsigned long long>(w.packets()),
         o.compact ? "compact_sched" : "full sched events");
  return 0;
}
