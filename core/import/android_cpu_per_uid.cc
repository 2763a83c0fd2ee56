#include "core/import/android_cpu_per_uid.h"

#include <string>
#include <vector>

#include "core/import/track_tracker.h"

namespace fathom {
namespace {

// CpuPerUidData fields.
constexpr uint32_t kClusterCount = 1, kUid = 2, kTotalTimeMs = 3;

constexpr uint32_t kPerUserRange = 100000;  // uid = user * 100000 + app id
constexpr uint32_t kFirstAppId = 10000;
constexpr uint32_t kFirstIsolatedId = 90000, kLastIsolatedId = 99999;

bool IsIsolated(uint32_t uid) {
  uint32_t app = uid % kPerUserRange;
  return app >= kFirstIsolatedId && app <= kLastIsolatedId;
}

}  // namespace

void CpuPerUidParser::PushTotals(int64_t ts, Group group, uint32_t cluster) {
  TraceStorage* s = ctx_->storage.get();
  std::string name = std::string("CPU for ") + (group == kApps ? "Apps" : "System") + " CL" +
                     std::to_string(cluster);
  uint32_t track = ctx_->track_tracker->InternGlobalCounterTrack(
      s->Intern(name), s->Intern("android_cpu_per_uid_totals"));
  ctx_->track_tracker->PushCounter(ts, totals_[{group, cluster}], track);
}

void CpuPerUidParser::Parse(int64_t ts, proto::Bytes payload) {
  std::vector<uint32_t> uids;
  std::vector<uint64_t> times;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == kClusterCount) cluster_count_ = f.as_uint32();
    uint64_t v;
    if (f.id == kUid) {
      if (f.bytes.data) {
        for (proto::PackedVarints p(f.bytes); p.Next(&v);) uids.push_back(static_cast<uint32_t>(v));
      } else {
        uids.push_back(f.as_uint32());
      }
    } else if (f.id == kTotalTimeMs) {
      if (f.bytes.data) {
        for (proto::PackedVarints p(f.bytes); p.Next(&v);) times.push_back(v);
      } else {
        times.push_back(f.as_uint64());
      }
    }
  }
  if (cluster_count_ == 0) return;  // the times cannot be split into clusters
  // The first packet holds every UID's time so far; later ones hold what
  // changed since the one before, for the UIDs whose time changed.
  const bool first = !seen_first_packet_;
  seen_first_packet_ = true;
  // Entries written by this packet, written once each (isolated UIDs merge).
  std::map<std::pair<uint32_t, uint32_t>, bool> touched;
  std::array<bool, 2> in_first{};
  std::map<std::pair<int, uint32_t>, bool> totals_changed;
  for (size_t i = 0; i < uids.size(); ++i) {
    uint32_t uid = uids[i];
    bool isolated = IsIsolated(uid);
    // An isolated UID lives for one task: all of a user's are one entry.
    uint32_t key_uid = isolated ? uid - uid % kPerUserRange + kFirstIsolatedId : uid;
    Group group = uid % kPerUserRange >= kFirstAppId ? kApps : kSystem;
    if (first) in_first[group] = true;
    for (uint32_t c = 0; c < cluster_count_; ++c) {
      size_t at = i * cluster_count_ + c;
      if (at >= times.size()) break;  // a short packet: the rest is missing
      auto value = static_cast<double>(times[at]);
      auto [it, inserted] = per_uid_.try_emplace({key_uid, c}, 0.0);
      if (inserted) {
        // A UID's first time is its total so far; isolated UIDs start at 0,
        // as what they used before is not known per entry.
        it->second = isolated ? 0.0 : value;
        touched[{key_uid, c}] = true;
        continue;
      }
      if (first || value == 0) continue;
      it->second += value;
      touched[{key_uid, c}] = true;
      totals_[{group, c}] += value;
      totals_changed[{group, c}] = true;
    }
  }
  TraceStorage* s = ctx_->storage.get();
  StringId type = s->Intern("android_cpu_per_uid");
  for (const auto& [key, unused] : touched) {
    std::string name =
        "CPU for UID " + std::to_string(key.first) + " CL" + std::to_string(key.second);
    uint32_t track = ctx_->track_tracker->InternGlobalCounterTrack(s->Intern(name), type);
    ctx_->track_tracker->PushCounter(ts, per_uid_[key], track);
  }
  if (first) {
    for (int g = kSystem; g <= kApps; ++g)
      if (in_first[g])
        for (uint32_t c = 0; c < cluster_count_; ++c) PushTotals(ts, static_cast<Group>(g), c);
    return;
  }
  for (const auto& [key, unused] : totals_changed)
    PushTotals(ts, static_cast<Group>(key.first), key.second);
}

}  // namespace fathom
