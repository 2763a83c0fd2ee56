// The simulated system every feature draws its pids, tids and names from.
#include <string>

#include "tests/conformance/difftester/gen/generators.h"

namespace fathom::difftester {
namespace {

const char* const kAppNames[] = {"com.android.systemui", "surfaceflinger", "system_server",
                                 "com.example.mail",     "media.codec",    "/system/bin/logd",
                                 "com.example.maps:svc", "app_process64",  "/vendor/bin/hw/x"};
const char* const kThreadNames[] = {"RenderThread", "HwBinder:1", "binder:2_1",  "Jit thread pool",
                                    "worker",       "GLThread",   "AsyncTask #1"};
const char* const kKthreadNames[] = {"kworker/0:1", "ksoftirqd/0", "rcu_preempt", "kswapd0",
                                     "irq/42-touch"};

// Linux truncates a task's comm to 15 characters; processes' main threads
// carry the last path component of their cmdline.
std::string CommOf(const std::string& cmdline) {
  std::string base = cmdline.substr(cmdline.rfind('/') + 1);
  return base.substr(0, 15);
}

}  // namespace

void BuildWorld(GenContext* ctx) {
  ctx->processes.push_back({1, 0, 0, "/system/bin/init", true, false});
  ctx->threads.push_back({1, 1, "init"});
  ctx->processes.push_back({2, 0, 0, "kthreadd", true, true});
  ctx->threads.push_back({2, 2, "kthreadd", true, true});
  const int kthreads = 1 + static_cast<int>(ctx->Rand(3));
  for (int i = 0; i < kthreads; ++i) {
    int32_t pid = 3 + i * 7;
    // Kernel threads are their own thread group, children of kthreadd.
    ctx->processes.push_back({pid, 2, 0, ctx->Pick(kKthreadNames), true, true});
    ctx->threads.push_back({pid, pid, ctx->processes.back().cmdline, true, true});
  }
  for (int i = 0; i < ctx->features.processes; ++i) {
    int32_t pid = ctx->NewPid();
    std::string cmdline = ctx->Pick(kAppNames);
    int32_t uid = ctx->Chance(70) ? static_cast<int32_t>(10000 + ctx->Rand(50))
                                  : static_cast<int32_t>(ctx->Rand(2000));
    ctx->processes.push_back({pid, ctx->Chance(80) ? 1 : ctx->processes.back().pid, uid, cmdline});
    ctx->threads.push_back({pid, pid, CommOf(cmdline)});
    const int nthreads = static_cast<int>(ctx->Rand(4));
    for (int t = 0; t < nthreads; ++t)
      ctx->threads.push_back({ctx->NewPid(), pid, ctx->Pick(kThreadNames)});
  }
}

}  // namespace fathom::difftester
