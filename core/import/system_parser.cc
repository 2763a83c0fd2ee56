#include "core/import/system_parser.h"

namespace fathom {

SystemParser::SystemParser(TraceContext* ctx) : ctx_(ctx) {}
SystemParser::~SystemParser() = default;

bool SystemParser::ParsePacket(int64_t ts, uint32_t field_id, proto::Bytes payload,
                               proto::Bytes packet, const SequenceGeneration& gen) {
  return false;
}
void SystemParser::OnImportFinished() {}

}  // namespace fathom
