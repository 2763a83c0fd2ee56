#include "core/import/ftrace_parser.h"

namespace fathom {

FtraceParser::FtraceParser(TraceContext* ctx) : ctx_(ctx) {}
FtraceParser::~FtraceParser() = default;

void FtraceParser::ParseFtraceEvent(int64_t ts, uint32_t cpu, proto::Bytes event) {
  ctx_->storage->UpdateBounds(ts);
}
void FtraceParser::ParseCompactSwitch(int64_t ts, uint32_t cpu, const CompactSwitchRecord& r) {
  ctx_->storage->UpdateBounds(ts);
}
void FtraceParser::ParseCompactWaking(int64_t ts, uint32_t cpu, const CompactWakingRecord& r) {
  ctx_->storage->UpdateBounds(ts);
}
void FtraceParser::OnImportFinished() {}

}  // namespace fathom
