#include "core/load/stat_problems.h"

#include <cstring>

#include "core/import/trace_context.h"

namespace fathom {

StatProblemReporter::StatProblemReporter(TraceContext* ctx) : ctx_(ctx) {
  ctx_->storage->stats.set_observer(this);
}

StatProblemReporter::~StatProblemReporter() { ctx_->storage->stats.set_observer(nullptr); }

void StatProblemReporter::OnCounted(Stat s) {
  const StatInfo& info = GetStatInfo(s);
  // data_loss stats describe the recording (a writer's packet loss, a slice
  // that began before the trace): true of a sound file, and shown by the
  // stats table. Errors are what the importer could not make sense of.
  if (std::strcmp(info.severity, "error") != 0) return;
  const std::string what = std::string(info.name) + ": " + info.description;
  const TraceContext::Cursor& c = ctx_->cursor;
  if (c.event) {
    if (auto o = ctx_->origins.Locate(c.event)) {
      ctx_->problems.AddIn(o->source, info.name, o->offset,
                           (o->inflated ? "in the compressed packet here: " : "") + what);
      return;
    }
    ctx_->problems.AddParsed(info.name, c.event_ts, what);
    return;
  }
  if (c.packet_offset) {
    // The tokenizer already reported this packet's problem in its own words.
    if (ctx_->problems.last_offset() == c.packet_offset) return;
    ctx_->problems.AddIn(ctx_->problems.source(), info.name, *c.packet_offset, what);
    return;
  }
  ctx_->problems.AddParsed(info.name, std::nullopt, what);
}

}  // namespace fathom
