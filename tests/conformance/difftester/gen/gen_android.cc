// Logcat batches (android.log data source). Log timestamps are REALTIME per
// the spec, so they only map to trace time through a clock snapshot.
#include <string>

#include "tests/conformance/difftester/gen/generators.h"

namespace fathom::difftester {
namespace {

using perfetto::protos::AndroidLogPacket;

const char* const kTags[] = {"ActivityManager", "chatty", "", "Zygote", "libc"};
const char* const kMessages[] = {"Start proc 1234:com.example/u0a12", "", "a\tb", "ünïcode",
                                 "long message long message long message long message"};

void FillEvent(GenContext* ctx, AndroidLogPacket::LogEvent* ev, int64_t boot_ts) {
  const bool events_log = ctx->Chance(15);
  ev->set_log_id(events_log
                     ? perfetto::protos::LID_EVENTS
                     : static_cast<perfetto::protos::AndroidLogId>(ctx->Rand(4) == 2 ? 3 : 0));
  if (const SimThread* t = ctx->RandomUserThread(); t && ctx->Chance(95)) {
    ev->set_pid(t->tgid);
    ev->set_tid(t->tid);
  }
  if (ctx->Chance(70)) ev->set_uid(static_cast<int32_t>(10000 + ctx->Rand(30)));
  ev->set_timestamp(static_cast<uint64_t>(boot_ts + ctx->realtime_offset));
  if (ctx->Chance(90)) ev->set_tag(ctx->Pick(kTags));
  if (events_log) {
    auto* a = ev->add_args();
    a->set_name("pid");
    a->set_int_value(static_cast<int64_t>(ctx->Rand(5000)));
    auto* s = ev->add_args();
    s->set_name("reason");
    s->set_string_value("test");
    return;
  }
  ev->set_prio(static_cast<perfetto::protos::AndroidLogPriority>(ctx->Rand(8)));
  if (ctx->Chance(95)) ev->set_message(ctx->Pick(kMessages));
}

}  // namespace

void EmitAndroidLogs(GenContext* ctx) {
  const int batches = 1 + static_cast<int>(ctx->Rand(3));
  const int64_t span = ctx->end_ts - ctx->start_ts;
  for (int b = 0; b < batches; ++b) {
    const int64_t batch_ts = ctx->start_ts + span * (b + 1) / batches;
    AndroidLogPacket* logs = ctx->Emit(batch_ts, GenContext::kSeqLogs)->mutable_android_log();
    const int n = 1 + static_cast<int>(ctx->Rand(8));
    for (int i = 0; i < n; ++i)
      FillEvent(ctx, logs->add_events(), batch_ts - ctx->RandRange(0, span / batches));
    if (ctx->Chance(20)) {
      logs->mutable_stats()->set_num_total(static_cast<uint64_t>(n) + ctx->Rand(5));
      logs->mutable_stats()->set_num_failed(ctx->Rand(3));
      logs->mutable_stats()->set_num_skipped(ctx->Rand(3));
    }
  }
}

}  // namespace fathom::difftester
