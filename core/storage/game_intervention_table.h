// android_game_intervention_list: each game's modes and interventions
// (AndroidGameInterventionList packets), one row per game as upstream. A mode
// the game does not support has supported = 0 and NULL settings.
#pragma once

#include <optional>

#include "core/storage/column.h"

namespace fathom {

struct GameModeSettings {
  bool supported = false;
  std::optional<double> downscale;
  std::optional<int64_t> use_angle;
  std::optional<double> fps;
};

struct GameInterventionListTable : Table {
  GameInterventionListTable() : Table("android_game_intervention_list") {}
  IdColumn id{this, "id"};
  StringColumn package_name{this, "package_name"};
  Int64Column uid{this, "uid"};
  Int64Column current_mode{this, "current_mode"};
  Int64Column standard_mode_supported{this, "standard_mode_supported"};
  DoubleColumn standard_mode_downscale{this, "standard_mode_downscale", kNullable};
  Int64Column standard_mode_use_angle{this, "standard_mode_use_angle", kNullable};
  DoubleColumn standard_mode_fps{this, "standard_mode_fps", kNullable};
  Int64Column perf_mode_supported{this, "perf_mode_supported"};
  DoubleColumn perf_mode_downscale{this, "perf_mode_downscale", kNullable};
  Int64Column perf_mode_use_angle{this, "perf_mode_use_angle", kNullable};
  DoubleColumn perf_mode_fps{this, "perf_mode_fps", kNullable};
  Int64Column battery_mode_supported{this, "battery_mode_supported"};
  DoubleColumn battery_mode_downscale{this, "battery_mode_downscale", kNullable};
  Int64Column battery_mode_use_angle{this, "battery_mode_use_angle", kNullable};
  DoubleColumn battery_mode_fps{this, "battery_mode_fps", kNullable};

  // modes: standard, performance, battery (Android's GameManager modes 1-3).
  uint32_t Insert(StringId name, int64_t u, int64_t current, const GameModeSettings (&modes)[3]) {
    package_name.Append(name);
    uid.Append(u);
    current_mode.Append(current);
    AppendMode(modes[0], standard_mode_supported, standard_mode_downscale, standard_mode_use_angle,
               standard_mode_fps);
    AppendMode(modes[1], perf_mode_supported, perf_mode_downscale, perf_mode_use_angle,
               perf_mode_fps);
    AppendMode(modes[2], battery_mode_supported, battery_mode_downscale, battery_mode_use_angle,
               battery_mode_fps);
    return CommitRow();
  }

 private:
  static void AppendMode(const GameModeSettings& m, Int64Column& supported, DoubleColumn& downscale,
                         Int64Column& use_angle, DoubleColumn& fps) {
    supported.Append(m.supported ? 1 : 0);
    downscale.Append(m.downscale);
    use_angle.Append(m.use_angle);
    fps.Append(m.fps);
  }
};

}  // namespace fathom
