#include "core/import/power_parser.h"

#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/import/args_tracker.h"
#include "core/import/track_tracker.h"
#include "perfetto/trace/power/power.pb.h"

namespace fathom {

namespace pp = perfetto::protos;

namespace {

// Upstream's friendly names of well-known Pixel ODPM rails.
const char* FriendlyRailName(std::string_view raw) {
  static const std::pair<const char*, const char*> kRails[] = {
      {"S4M_VDD_CPUCL0", "cpu.little"},
      {"S3M_VDD_CPUCL1", "cpu.mid"},
      {"S2M_VDD_CPUCL2", "cpu.big"},
      {"S5M_VDD_INT", "system.fabric"},
      {"S10M_VDD_TPU", "tpu"},
      {"PPVAR_VSYS_PWR_DISP", "display"},
      {"VSYS_PWR_DISPLAY", "display"},
      {"VSYS_PWR_MODEM", "modem"},
      {"S1M_VDD_MIF", "memory.interface"},
      {"VSYS_PWR_WLAN_BT", "wifi.bt"},
      {"L2S_VDD_AOC_RET", "aoc.memory"},
      {"S9S_VDD_AOC", "aoc.logic"},
      {"S5S_VDDQ_MEM", "ddr.a"},
      {"S10S_VDD2L", "ddr.b"},
      {"S4S_VDD2H_MEM", "ddr.c"},
      {"S2S_VDD_G3D", "gpu"},
      {"L9S_GNSS_CORE", "gps"},
      {"VSYS_PWR_RFFE", "radio.frontend"},
  };
  for (const auto& [r, name] : kRails)
    if (raw == r) return name;
  return nullptr;
}

}  // namespace

PowerParser::PowerParser(TraceContext* ctx) : ctx_(ctx) {}

void PowerParser::ParseBattery(int64_t ts, proto::Bytes payload) {
  using B = pp::BatteryCounters;
  std::optional<int64_t> charge, current, current_avg, energy, voltage;
  std::optional<double> capacity;
  std::string_view name;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case B::kChargeCounterUahFieldNumber:
        charge = f.as_int64();
        break;
      case B::kCapacityPercentFieldNumber:
        capacity = f.as_float();
        break;
      case B::kCurrentUaFieldNumber:
        current = f.as_int64();
        break;
      case B::kCurrentAvgUaFieldNumber:
        current_avg = f.as_int64();
        break;
      case B::kNameFieldNumber:
        name = f.as_string();
        break;
      case B::kEnergyCounterUwhFieldNumber:
        energy = f.as_int64();
        break;
      case B::kVoltageUvFieldNumber:
        voltage = f.as_int64();
        break;
    }
  }
  // Linux sysfs batteries may only report energy: charge = energy / voltage.
  if (!charge && energy && voltage && *voltage > 0)
    charge =
        static_cast<int64_t>(static_cast<double>(*energy) * 1e6 / static_cast<double>(*voltage));

  TraceStorage* s = ctx_->storage.get();
  std::string prefix = name.empty() ? "batt." : "batt." + std::string(name) + ".";
  auto push = [&](const char* suffix, double v) {
    uint32_t track = ctx_->track_tracker->InternGlobalCounterTrack(s->Intern(prefix + suffix),
                                                                   s->Intern("battery_counter"));
    ctx_->track_tracker->PushCounter(ts, v, track);
  };
  if (charge) push("charge_uah", static_cast<double>(*charge));
  if (capacity) push("capacity_pct", *capacity);
  if (current) push("current_ua", static_cast<double>(*current));
  if (current_avg) push("current.avg_ua", static_cast<double>(*current_avg));
  if (voltage) push("voltage_uv", static_cast<double>(*voltage));
  // Power drawn, in mW, whichever way the current flows (the sign of
  // current_ua only says charging or discharging).
  if (current && voltage)
    push("power_mw", std::abs(static_cast<double>(*current)) * static_cast<double>(*voltage) / 1e9);
}

uint32_t PowerParser::RailTrack(StringId name, std::string_view rail, uint64_t session) {
  const uint32_t machine = ctx_->packet_machine_id;
  auto [it, inserted] = rail_track_by_name_.try_emplace({machine, session, name}, 0);
  if (!inserted) return it->second;
  TraceStorage* s = ctx_->storage.get();
  // Rails of different devices or recording sessions may share a name and
  // index: each keeps its own track, told apart by its dimensions.
  uint32_t track = ctx_->track_tracker->CreateTrack(true, name, s->Intern("power_rails"),
                                                    std::nullopt, std::nullopt, std::nullopt);
  s->track.machine_id.Set(track, machine);
  auto dims = ctx_->args_tracker->NewSet()
                  .AddString("name", rail)
                  .AddInt("session_uuid", static_cast<int64_t>(session))
                  .Commit();
  if (dims) s->track.dimension_arg_set_id.Set(track, *dims);
  it->second = track;
  return track;
}

void PowerParser::ParsePowerRails(int64_t ts, proto::Bytes payload) {
  using PR = pp::PowerRails;
  TraceStorage* s = ctx_->storage.get();
  uint64_t session = 0;
  std::vector<proto::Bytes> descriptors, data;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == PR::kSessionUuidFieldNumber) session = f.as_uint64();
    if (f.id == PR::kRailDescriptorFieldNumber) descriptors.push_back(f.bytes);
    if (f.id == PR::kEnergyDataFieldNumber) data.push_back(f.bytes);
  }
  for (proto::Bytes b : descriptors) {
    uint32_t index = 0;
    std::string_view rail, subsys;
    proto::Decoder dd(b);
    for (proto::Field f = dd.Next(); f.valid(); f = dd.Next()) {
      if (f.id == PR::RailDescriptor::kIndexFieldNumber) index = f.as_uint32();
      if (f.id == PR::RailDescriptor::kRailNameFieldNumber) rail = f.as_string();
      if (f.id == PR::RailDescriptor::kSubsysNameFieldNumber) subsys = f.as_string();
    }
    const char* friendly = FriendlyRailName(rail);
    std::string name =
        friendly ? std::string("power.rails.") + friendly : "power." + std::string(rail) + "_uws";
    uint32_t track = RailTrack(s->Intern(name), rail, session);
    if (s->track.source_arg_set_id.IsNull(track)) {
      auto args = ctx_->args_tracker->NewSet()
                      .AddString("raw_name", rail)
                      .AddString("subsystem_name", subsys)
                      .Commit();
      if (args) s->track.source_arg_set_id.Set(track, *args);
    }
    rail_tracks_[{ctx_->packet_machine_id, session, index}] = track;
  }
  for (proto::Bytes b : data) {
    uint32_t index = 0;
    std::optional<uint64_t> ts_ms;
    uint64_t energy = 0;
    proto::Decoder ed(b);
    for (proto::Field f = ed.Next(); f.valid(); f = ed.Next()) {
      if (f.id == PR::EnergyData::kIndexFieldNumber) index = f.as_uint32();
      if (f.id == PR::EnergyData::kTimestampMsFieldNumber) ts_ms = f.as_uint64();
      if (f.id == PR::EnergyData::kEnergyFieldNumber) energy = f.as_uint64();
    }
    auto it = rail_tracks_.find({ctx_->packet_machine_id, session, index});
    if (it == rail_tracks_.end()) {
      s->stats.Increment(Stat::kPowerRailUnknownIndex);
      continue;
    }
    // Each sample carries its own (ms) time; the packet time is kept as an arg.
    int64_t sample_ts = ts_ms ? static_cast<int64_t>(*ts_ms) * 1000000 : ts;
    uint32_t row =
        ctx_->track_tracker->PushCounter(sample_ts, static_cast<double>(energy), it->second);
    if (auto args = ctx_->args_tracker->NewSet().AddInt("packet_ts", ts).Commit())
      s->counter.arg_set_id.Set(row, *args);
  }
}

void PowerParser::ParseEntityStateResidency(int64_t ts, proto::Bytes payload) {
  using E = pp::EntityStateResidency;
  TraceStorage* s = ctx_->storage.get();
  std::vector<proto::Bytes> residencies;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == E::kResidencyFieldNumber) {
      residencies.push_back(f.bytes);
      continue;
    }
    if (f.id != E::kPowerEntityStateFieldNumber) continue;
    std::optional<int32_t> entity, state;
    std::string_view entity_name, state_name;
    proto::Decoder sd(f.bytes);
    for (proto::Field g = sd.Next(); g.valid(); g = sd.Next()) {
      if (g.id == E::PowerEntityState::kEntityIndexFieldNumber) entity = g.as_int32();
      if (g.id == E::PowerEntityState::kStateIndexFieldNumber) state = g.as_int32();
      if (g.id == E::PowerEntityState::kEntityNameFieldNumber) entity_name = g.as_string();
      if (g.id == E::PowerEntityState::kStateNameFieldNumber) state_name = g.as_string();
    }
    if (!entity || !state) {
      s->stats.Increment(Stat::kEnergyDescriptorInvalid);
      continue;
    }
    entity_states_[{*entity, *state}] = s->Intern("Entity residency: " + std::string(entity_name) +
                                                  " is " + std::string(state_name));
  }
  for (proto::Bytes b : residencies) {
    int32_t entity = 0, state = 0;
    uint64_t time_ms = 0;
    proto::Decoder rd(b);
    for (proto::Field f = rd.Next(); f.valid(); f = rd.Next()) {
      if (f.id == E::StateResidency::kEntityIndexFieldNumber) entity = f.as_int32();
      if (f.id == E::StateResidency::kStateIndexFieldNumber) state = f.as_int32();
      if (f.id == E::StateResidency::kTotalTimeInStateMsFieldNumber) time_ms = f.as_uint64();
    }
    auto it = entity_states_.find({entity, state});
    if (it == entity_states_.end()) {
      s->stats.Increment(Stat::kEnergyDescriptorInvalid);
      continue;
    }
    uint32_t track =
        ctx_->track_tracker->InternGlobalCounterTrack(it->second, s->Intern("entity_state"));
    ctx_->track_tracker->PushCounter(ts, static_cast<double>(time_ms), track);
  }
}

}  // namespace fathom

namespace fathom {

void PowerParser::ParseEnergyConsumerDescriptor(proto::Bytes payload) {
  using C = pp::AndroidEnergyConsumer;
  TraceStorage* s = ctx_->storage.get();
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id != pp::AndroidEnergyConsumerDescriptor::kEnergyConsumersFieldNumber) continue;
    proto::FlatMessage<8> m(f.bytes);
    EnergyConsumer& c = energy_consumers_[m[C::kEnergyConsumerIdFieldNumber].as_int32()];
    c.name = s->Intern(m[C::kNameFieldNumber].as_string());
    c.type = s->Intern(m[C::kTypeFieldNumber].as_string());
    c.ordinal = m[C::kOrdinalFieldNumber].as_int32();
  }
}

uint32_t PowerParser::EnergyTrack(int32_t consumer_id, std::optional<int32_t> uid) {
  auto [it, inserted] = energy_tracks_.try_emplace({consumer_id, uid}, 0);
  if (!inserted) return it->second;
  TraceStorage* s = ctx_->storage.get();
  // Callers check that the descriptor named the consumer.
  const EnergyConsumer& consumer = energy_consumers_.at(consumer_id);
  StringId type = s->Intern(uid ? "android_energy_estimation_breakdown_per_uid"
                                : "android_energy_estimation_breakdown");
  uint32_t track = ctx_->track_tracker->CreateTrack(true, consumer.name, type, std::nullopt,
                                                    std::nullopt, std::nullopt);
  auto dims = ctx_->args_tracker->NewSet();
  dims.AddInt("energy_consumer_id", consumer_id);
  if (uid) dims.AddInt("uid", *uid);
  if (auto set = dims.Commit()) s->track.dimension_arg_set_id.Set(track, *set);
  if (!uid) {
    auto source = ctx_->args_tracker->NewSet()
                      .AddString("consumer_type", consumer.type)
                      .AddInt("ordinal", consumer.ordinal)
                      .Commit();
    if (source) s->track.source_arg_set_id.Set(track, *source);
  }
  it->second = track;
  return track;
}

void PowerParser::ParseEnergyEstimationBreakdown(int64_t ts, proto::Bytes payload) {
  using B = pp::AndroidEnergyEstimationBreakdown;
  std::optional<int32_t> consumer_id;
  std::optional<int64_t> energy;
  std::vector<proto::Bytes> per_uid;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case B::kEnergyConsumerDescriptorFieldNumber:
        ParseEnergyConsumerDescriptor(f.bytes);
        break;
      case B::kEnergyConsumerIdFieldNumber:
        consumer_id = f.as_int32();
        break;
      case B::kEnergyUwsFieldNumber:
        energy = f.as_int64();
        break;
      case B::kPerUidBreakdownFieldNumber:
        per_uid.push_back(f.bytes);
        break;
    }
  }
  // Energy is only recorded for a consumer the descriptor named (a packet
  // with only the descriptor carries none).
  if (!consumer_id || !energy || !energy_consumers_.count(*consumer_id)) return;
  TrackTracker* tt = ctx_->track_tracker.get();
  tt->PushCounter(ts, static_cast<double>(*energy), EnergyTrack(*consumer_id, {}));
  for (proto::Bytes b : per_uid) {
    proto::FlatMessage<4> m(b);
    tt->PushCounter(
        ts, static_cast<double>(m[B::EnergyUidBreakdown::kEnergyUwsFieldNumber].as_int64()),
        EnergyTrack(*consumer_id, m[B::EnergyUidBreakdown::kUidFieldNumber].as_int32()));
  }
}

}  // namespace fathom
