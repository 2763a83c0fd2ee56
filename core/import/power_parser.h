// Power data: BatteryCounters (batt.* counters), PowerRails (energy per rail,
// upstream's well-known rail names) and EntityStateResidency.
#pragma once

#include <cstdint>
#include <map>
#include <utility>

#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

class PowerParser {
 public:
  explicit PowerParser(TraceContext* ctx);

  void ParseBattery(int64_t ts, proto::Bytes payload);
  void ParsePowerRails(int64_t ts, proto::Bytes payload);
  void ParseEntityStateResidency(int64_t ts, proto::Bytes payload);

 private:
  TraceContext* ctx_;
  // (session uuid, rail index) -> counter track.
  std::map<std::pair<uint64_t, uint32_t>, uint32_t> rail_tracks_;
  // (entity index, state index) -> counter track name.
  std::map<std::pair<int32_t, int32_t>, StringId> entity_states_;
};

}  // namespace fathom
