#include "core/import/track_event_parser.h"

namespace fathom {

TrackEventParser::TrackEventParser(TraceContext* ctx) : ctx_(ctx) {}
TrackEventParser::~TrackEventParser() = default;

void TrackEventParser::ParsePacket(int64_t ts, uint32_t field_id, proto::Bytes payload,
                                   proto::Bytes packet, const SequenceGeneration& gen) {}
void TrackEventParser::OnImportFinished() {}

}  // namespace fathom
