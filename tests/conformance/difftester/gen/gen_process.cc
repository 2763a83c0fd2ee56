// ProcessTree and ProcessStats packets, with the optional fields present or
// absent as the seed says (real producers omit many of them).
#include <string>

#include "tests/conformance/difftester/gen/generators.h"

namespace fathom::difftester {
namespace {

using perfetto::protos::ProcessStats;
using perfetto::protos::ProcessTree;

void FillProcess(GenContext* ctx, const SimProcess& sp, ProcessTree::Process* p) {
  p->set_pid(sp.pid);
  if (ctx->Chance(90)) p->set_ppid(sp.ppid);
  if (ctx->Chance(80)) p->set_uid(sp.uid);
  if (sp.kthread) {
    if (ctx->Chance(50)) p->set_is_kthread(true);
    if (ctx->Chance(50)) p->add_cmdline(sp.cmdline);
    return;
  }
  const int shape = static_cast<int>(ctx->Rand(10));
  if (shape == 0) return;  // no cmdline at all (e.g. a zombie)
  if (shape == 1) {
    // Only the comm was readable.
    p->add_cmdline(sp.cmdline.substr(sp.cmdline.rfind('/') + 1).substr(0, 15));
    p->set_cmdline_is_comm(true);
    return;
  }
  p->add_cmdline(sp.cmdline);
  if (shape >= 7) p->add_cmdline("--flag=" + std::to_string(ctx->Rand(9)));
  if (shape == 9) p->add_cmdline("");
  if (ctx->Chance(20)) p->set_process_start_from_boot(ctx->Rand(1'000'000'000));
}

}  // namespace

void EmitProcessTree(GenContext* ctx, int64_t ts) {
  TracePacket* packet = ctx->Emit(ts, GenContext::kSeqProcess);
  ProcessTree* tree = packet->mutable_process_tree();
  for (const SimProcess& sp : ctx->processes) {
    if (!sp.alive || ctx->Chance(5)) continue;  // a process may vanish mid-scan
    FillProcess(ctx, sp, tree->add_processes());
  }
  for (const SimThread& st : ctx->threads) {
    if (!st.alive || st.tid == st.tgid || ctx->Chance(5)) continue;
    ProcessTree::Thread* t = tree->add_threads();
    t->set_tid(st.tid);
    if (ctx->Chance(95)) t->set_tgid(st.tgid);
    if (ctx->Chance(85)) t->set_name(st.comm);
  }
  if (ctx->Chance(30)) tree->set_collection_end_timestamp(static_cast<uint64_t>(ts + 50'000));
}

void EmitProcessStats(GenContext* ctx, int64_t ts) {
  TracePacket* packet = ctx->Emit(ts, GenContext::kSeqProcess);
  ProcessStats* stats = packet->mutable_process_stats();
  for (const SimProcess& sp : ctx->processes) {
    if (!sp.alive || sp.kthread || ctx->Chance(30)) continue;
    ProcessStats::Process* p = stats->add_processes();
    p->set_pid(sp.pid);
    if (ctx->Chance(80)) p->set_vm_size_kb(100'000 + ctx->Rand(4'000'000));
    if (ctx->Chance(80)) p->set_vm_rss_kb(ctx->Rand(300'000));
    if (ctx->Chance(60)) p->set_rss_anon_kb(ctx->Rand(200'000));
    if (ctx->Chance(60)) p->set_rss_file_kb(ctx->Rand(100'000));
    if (ctx->Chance(40)) p->set_rss_shmem_kb(ctx->Rand(10'000));
    if (ctx->Chance(40)) p->set_vm_swap_kb(ctx->Rand(10'000));
    if (ctx->Chance(30)) p->set_vm_locked_kb(ctx->Rand(100));
    if (ctx->Chance(40)) p->set_vm_hwm_kb(300'000 + ctx->Rand(100'000));
    if (ctx->Chance(60)) p->set_oom_score_adj(static_cast<int64_t>(ctx->Rand(2001)) - 1000);
    if (ctx->Chance(15)) p->set_smr_rss_kb(ctx->Rand(100'000));
    if (ctx->Chance(15)) p->set_smr_pss_kb(ctx->Rand(100'000));
    if (ctx->Chance(10)) p->set_runtime_user_mode(ctx->Rand(1'000'000));
    if (ctx->Chance(10)) p->set_dmabuf_rss_kb(ctx->Rand(1000));
    if (ctx->Chance(10)) p->set_is_peak_rss_resettable(ctx->Chance(50));
  }
  if (ctx->Chance(30)) stats->set_collection_end_timestamp(static_cast<uint64_t>(ts + 20'000));
}

}  // namespace fathom::difftester
