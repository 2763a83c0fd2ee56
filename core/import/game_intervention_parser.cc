#include "core/import/game_intervention_parser.h"

#include "perfetto/trace/android/android_misc.pb.h"

namespace fathom {
namespace {

using perfetto::protos::AndroidGameInterventionList;
using PackageInfo = AndroidGameInterventionList::GamePackageInfo;
using ModeInfo = AndroidGameInterventionList::GameModeInfo;

// GameManager's modes: 1 standard, 2 performance, 3 battery (0 unsupported).
constexpr uint32_t kFirstMode = 1;
constexpr uint32_t kModes = 3;

void ParseMode(proto::Bytes payload, GameModeSettings (&modes)[kModes]) {
  uint32_t mode = 0;
  GameModeSettings m;
  m.supported = true;
  // As upstream, a listed mode's settings are its values or their defaults.
  m.use_angle = 0;
  m.downscale = 0;
  m.fps = 0;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case ModeInfo::kModeFieldNumber:
        mode = f.as_uint32();
        break;
      case ModeInfo::kUseAngleFieldNumber:
        m.use_angle = f.as_bool() ? 1 : 0;
        break;
      case ModeInfo::kResolutionDownscaleFieldNumber:
        m.downscale = f.as_float();
        break;
      case ModeInfo::kFpsFieldNumber:
        m.fps = f.as_float();
        break;
    }
  }
  if (mode >= kFirstMode && mode < kFirstMode + kModes) modes[mode - kFirstMode] = m;
}

void ParsePackage(TraceStorage* s, proto::Bytes payload) {
  StringId name = kNullStringId;
  int64_t uid = 0, current_mode = 0;
  GameModeSettings modes[kModes];
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case PackageInfo::kNameFieldNumber:
        name = s->Intern(f.as_string());
        break;
      case PackageInfo::kUidFieldNumber:
        uid = f.as_int64();
        break;
      case PackageInfo::kCurrentModeFieldNumber:
        current_mode = f.as_uint32();
        break;
      case PackageInfo::kGameModeInfoFieldNumber:
        ParseMode(f.bytes, modes);
        break;
    }
  }
  s->game_intervention_list.Insert(name, uid, current_mode, modes);
}

}  // namespace

void ParseGameInterventionList(TraceContext* ctx, proto::Bytes payload) {
  TraceStorage* s = ctx->storage.get();
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case AndroidGameInterventionList::kGamePackagesFieldNumber:
        ParsePackage(s, f.bytes);
        break;
      case AndroidGameInterventionList::kParseErrorFieldNumber:
        if (f.as_bool()) s->stats.Set(Stat::kGameInterventionHasParseErrors, 1);
        break;
      case AndroidGameInterventionList::kReadErrorFieldNumber:
        if (f.as_bool()) s->stats.Set(Stat::kGameInterventionHasReadErrors, 1);
        break;
    }
  }
}

}  // namespace fathom
