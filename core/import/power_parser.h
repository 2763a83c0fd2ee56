// Power data: BatteryCounters (batt.* counters), PowerRails (energy per rail,
// upstream's well-known rail names), EntityStateResidency and
// AndroidEnergyEstimationBreakdown (energy per consumer, and per uid).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>
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
  void ParseEnergyEstimationBreakdown(int64_t ts, proto::Bytes payload);

 private:
  TraceContext* ctx_;
  // (machine, session uuid, rail index) -> counter track.
  std::map<std::tuple<uint32_t, uint64_t, uint32_t>, uint32_t> rail_tracks_;
  // A rail's track: one per (machine, session uuid, track name), whose
  // dimension args are the rail name and the session uuid.
  uint32_t RailTrack(StringId name, std::string_view rail, uint64_t session);
  std::map<std::tuple<uint32_t, uint64_t, StringId>, uint32_t> rail_track_by_name_;
  // (entity index, state index) -> counter track name.
  std::map<std::pair<int32_t, int32_t>, StringId> entity_states_;

  struct EnergyConsumer {
    StringId name = kNullStringId;
    StringId type = kNullStringId;
    int32_t ordinal = 0;
  };
  void ParseEnergyConsumerDescriptor(proto::Bytes payload);
  // The counter track of a consumer's total (no uid) or of one uid's share.
  uint32_t EnergyTrack(int32_t consumer_id, std::optional<int32_t> uid);
  std::map<int32_t, EnergyConsumer> energy_consumers_;
  std::map<std::pair<int32_t, std::optional<int32_t>>, uint32_t> energy_tracks_;
};

}  // namespace fathom
