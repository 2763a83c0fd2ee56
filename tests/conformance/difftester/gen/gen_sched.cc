// The ftrace stream: one global sequence of events in time order, each on a
// cpu, flushed as per-cpu bundles every window. Scheduling follows a small
// state machine (what runs where) so switches, wakeups, forks, exits and
// renames stay mutually consistent, as a real kernel's would be.
#include <string>

#include "tests/conformance/difftester/gen/ftrace_writer.h"
#include "tests/conformance/difftester/gen/generators.h"

namespace fathom::difftester {
namespace {

constexpr int64_t kWindowNs = 4'000'000;
// prev_state values a kernel writes: runnable, S, D, preempted-runnable
// (TASK_REPORT_MAX on 4.14+), and a mix of flags.
const int64_t kSleepStates[] = {0, 1, 2, 1, 1, 0x100, 0x402, 130};
// prev_state of a task switched out after exiting: EXIT_DEAD, EXIT_ZOMBIE,
// TASK_DEAD on the kernels upstream knows.
const int64_t kDeadStates[] = {0x10, 0x20, 0x40, 0x80};

SimThread* RandomRunnable(GenContext* ctx) {
  for (int tries = 0; tries < 10; ++tries) {
    SimThread& t = ctx->threads[ctx->Rand(ctx->threads.size())];
    if (t.alive && t.running_cpu < 0) return &t;
  }
  return nullptr;
}

void DoSwitch(GenContext* ctx, FtraceWriter* w, int cpu, int64_t ts) {
  SimThread* next = ctx->Chance(15) ? nullptr : RandomRunnable(ctx);
  if (next == w->running(cpu)) return;
  if (next && ctx->Chance(60)) {
    w->Waking(cpu, ts, *next, cpu);
    ts += 1'000;
  }
  w->Switch(cpu, ts, ctx->Pick(kSleepStates), next);
}

// The running task forks: a new thread in its process, or a new process
// whose pid may be one a dead task used before (pid reuse).
void DoFork(GenContext* ctx, FtraceWriter* w, int cpu, int64_t ts) {
  SimThread* parent = w->running(cpu);
  if (!parent || parent->kthread) return;
  const bool new_process = ctx->Chance(50);
  const int32_t tid = ctx->Chance(40) ? ctx->ReusablePid() : ctx->NewPid();
  const int32_t parent_tid = parent->tid, parent_tgid = parent->tgid;
  const std::string comm = parent->comm;
  auto* nt = w->NewEvent(cpu, ts, parent_tid)->mutable_task_newtask();
  nt->set_pid(tid);
  nt->set_comm(comm);
  nt->set_clone_flags(new_process ? 0x1200011 : 0x3d0f00);  // SIGCHLD|... vs CLONE_THREAD|...
  nt->set_oom_score_adj(0);
  if (new_process) {
    SimProcess* pp = ctx->ProcessByPid(parent_tgid);
    ctx->processes.push_back({tid, parent_tgid, pp ? pp->uid : 0, comm});
    ctx->threads.push_back({tid, tid, comm});
  } else {
    ctx->threads.push_back({tid, parent_tgid, comm});
  }
}

bool OtherLiveThreads(GenContext* ctx, const SimThread& t) {
  for (const SimThread& o : ctx->threads)
    if (o.alive && o.tgid == t.tgid && o.tid != t.tid) return true;
  return false;
}

// The running task exits and is switched out dead. A process's main thread
// only exits last, taking the process with it.
void DoExit(GenContext* ctx, FtraceWriter* w, int cpu, int64_t ts) {
  SimThread* t = w->running(cpu);
  if (!t || t->kthread || t->tgid <= 2) return;
  if (t->tid == t->tgid && OtherLiveThreads(ctx, *t)) return;
  auto* ex = w->NewEvent(cpu, ts, t->tid)->mutable_sched_process_exit();
  ex->set_comm(t->comm);
  ex->set_pid(t->tid);
  ex->set_tgid(t->tgid);
  ex->set_prio(120);
  t->alive = false;
  if (t->tid == t->tgid)
    if (SimProcess* p = ctx->ProcessByPid(t->tgid)) p->alive = false;
  w->Switch(cpu, ts + 2'000, ctx->Pick(kDeadStates), RandomRunnable(ctx));
}

void DoRename(GenContext* ctx, FtraceWriter* w, int cpu, int64_t ts) {
  SimThread* t = ctx->Chance(70) ? w->running(cpu) : ctx->RandomUserThread();
  if (!t || !t->alive) return;
  static const char* const kNewNames[] = {"renamed", "Binder:x_2", "HeapTaskDaemon",
                                          "a-very-long-thread-name-over-15"};
  std::string newcomm = std::string(ctx->Pick(kNewNames)).substr(0, 15);
  auto* rn = w->NewEvent(cpu, ts, w->CurrentPid(cpu))->mutable_task_rename();
  rn->set_pid(t->tid);
  rn->set_oldcomm(t->comm);
  rn->set_newcomm(newcomm);
  rn->set_oom_score_adj(0);
  t->comm = newcomm;
}

void DoOneEvent(GenContext* ctx, FtraceWriter* w, int cpu, int64_t ts) {
  const Features& f = ctx->features;
  const int r = static_cast<int>(ctx->Rand(100));
  if (r < 35) {
    if (f.sched) DoSwitch(ctx, w, cpu, ts);
  } else if (r < 40) {
    if (f.sched && f.task_lifecycle) DoFork(ctx, w, cpu, ts);
  } else if (r < 43) {
    if (f.sched && f.task_lifecycle) DoExit(ctx, w, cpu, ts);
  } else if (r < 46) {
    if (f.sched && f.task_lifecycle) DoRename(ctx, w, cpu, ts);
  } else if (r < 75) {
    if (f.atrace) MaybeAtracePrint(ctx, w, cpu, ts);
  } else if (r < 90) {
    if (f.cpu_counters) MaybeCpuCounters(ctx, w, cpu, ts);
  } else {
    if (f.rss_stat) MaybeRssStat(ctx, w, cpu, ts);
  }
}

}  // namespace

void EmitFtrace(GenContext* ctx) {
  const Features& f = ctx->features;
  if (!f.sched && !f.atrace && !f.cpu_counters && !f.rss_stat) return;
  FtraceWriter w(ctx);
  // Without sched events atrace still needs a "running" task to write from.
  if (!f.sched)
    for (int cpu = 0; cpu < f.cpus; ++cpu) w.set_running(cpu, RandomRunnable(ctx));
  for (int win = 0; win < f.windows; ++win) {
    const int64_t window_ts = ctx->start_ts + win * kWindowNs;
    w.StartWindow(window_ts);
    int64_t t = window_ts + ctx->RandRange(0, 20'000);
    while (t < window_ts + kWindowNs) {
      DoOneEvent(ctx, &w, static_cast<int>(ctx->Rand(static_cast<uint64_t>(f.cpus))), t);
      t += ctx->RandRange(5'000, 80'000);
    }
  }
  ctx->end_ts = ctx->start_ts + f.windows * kWindowNs;
}

}  // namespace fathom::difftester
