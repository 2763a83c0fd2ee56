#include "tests/conformance/difftester/gen/ftrace_writer.h"

namespace fathom::difftester {

FtraceWriter::FtraceWriter(GenContext* ctx)
    : ctx_(ctx),
      cpus_(static_cast<size_t>(ctx->features.cpus)),
      running_(static_cast<size_t>(ctx->features.cpus), nullptr) {}

void FtraceWriter::StartWindow(int64_t window_ts) {
  window_ts_ = window_ts;
  for (CpuBundle& c : cpus_) c = CpuBundle();
}

FtraceEventBundle* FtraceWriter::BundleOf(int cpu) {
  CpuBundle& c = cpus_[static_cast<size_t>(cpu)];
  if (!c.bundle) {
    TracePacket* p =
        ctx_->Emit(window_ts_, GenContext::kSeqFtraceBase + static_cast<uint32_t>(cpu));
    p->clear_timestamp();  // ftrace bundles carry their time in the events
    c.bundle = p->mutable_ftrace_events();
    c.bundle->set_cpu(static_cast<uint32_t>(cpu));
  }
  return c.bundle;
}

FtraceEvent* FtraceWriter::NewEvent(int cpu, int64_t ts, int32_t current_pid) {
  FtraceEvent* e = BundleOf(cpu)->add_event();
  e->set_timestamp(static_cast<uint64_t>(ts));
  e->set_pid(static_cast<uint32_t>(current_pid));
  return e;
}

uint32_t FtraceWriter::Intern(int cpu, const std::string& comm) {
  CpuBundle& c = cpus_[static_cast<size_t>(cpu)];
  for (size_t i = 0; i < c.interned.size(); ++i)
    if (c.interned[i] == comm) return static_cast<uint32_t>(i);
  c.interned.push_back(comm);
  BundleOf(cpu)->mutable_compact_sched()->add_intern_table(comm);
  return static_cast<uint32_t>(c.interned.size() - 1);
}

void FtraceWriter::Switch(int cpu, int64_t ts, int64_t prev_state, SimThread* next) {
  SimThread* prev = running(cpu);
  const std::string idle_comm = "swapper/" + std::to_string(cpu);
  const int32_t prio = 120;
  if (ctx_->features.compact_sched) {
    CpuBundle& c = cpus_[static_cast<size_t>(cpu)];
    auto* cs = BundleOf(cpu)->mutable_compact_sched();
    // Timestamps are deltas from the previous switch of this bundle.
    cs->add_switch_timestamp(static_cast<uint64_t>(ts) - c.last_switch_ts);
    c.last_switch_ts = static_cast<uint64_t>(ts);
    cs->add_switch_prev_state(prev ? prev_state : 0);
    cs->add_switch_next_pid(next ? next->tid : 0);
    cs->add_switch_next_prio(next && next->kthread ? 100 : prio);
    cs->add_switch_next_comm_index(Intern(cpu, next ? next->comm : idle_comm));
  } else {
    auto* sw = NewEvent(cpu, ts, CurrentPid(cpu))->mutable_sched_switch();
    sw->set_prev_comm(prev ? prev->comm : idle_comm);
    sw->set_prev_pid(prev ? prev->tid : 0);
    sw->set_prev_prio(prev && prev->kthread ? 100 : prio);
    sw->set_prev_state(prev ? prev_state : 0);
    sw->set_next_comm(next ? next->comm : idle_comm);
    sw->set_next_pid(next ? next->tid : 0);
    sw->set_next_prio(next && next->kthread ? 100 : prio);
  }
  if (prev) prev->running_cpu = -1;
  if (next) next->running_cpu = cpu;
  set_running(cpu, next);
}

void FtraceWriter::Waking(int cpu, int64_t ts, const SimThread& wakee, int target_cpu) {
  if (ctx_->features.compact_sched) {
    CpuBundle& c = cpus_[static_cast<size_t>(cpu)];
    auto* cs = BundleOf(cpu)->mutable_compact_sched();
    cs->add_waking_timestamp(static_cast<uint64_t>(ts) - c.last_waking_ts);
    c.last_waking_ts = static_cast<uint64_t>(ts);
    cs->add_waking_pid(wakee.tid);
    cs->add_waking_target_cpu(target_cpu);
    cs->add_waking_prio(120);
    cs->add_waking_comm_index(Intern(cpu, wakee.comm));
    cs->add_waking_common_flags(1);
    return;
  }
  auto* wk = NewEvent(cpu, ts, CurrentPid(cpu))->mutable_sched_waking();
  wk->set_comm(wakee.comm);
  wk->set_pid(wakee.tid);
  wk->set_prio(120);
  wk->set_success(1);
  wk->set_target_cpu(target_cpu);
}

}  // namespace fathom::difftester
