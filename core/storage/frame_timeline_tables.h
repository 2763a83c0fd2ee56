// SurfaceFlinger FrameTimeline slices: the frame-specific columns of the
// slices on "Expected Timeline" / "Actual Timeline" tracks. The slice itself
// (ts, dur, track, name, args) lives in `slice`; SQL views join the two into
// upstream's expected_frame_timeline_slice and actual_frame_timeline_slice.
#pragma once

#include <cstdint>
#include <optional>

#include "core/storage/column.h"

namespace fathom {

struct FrameTimelineSliceTable : Table {
  FrameTimelineSliceTable() : Table("__intrinsic_frame_timeline_slice") {}
  IdColumn id{this, "id"};
  UInt32Column slice_id{this, "slice_id"};
  UInt32Column is_expected{this, "is_expected"};  // 1: expected timeline, 0: actual
  Int64Column display_frame_token{this, "display_frame_token", kNullable};
  Int64Column surface_frame_token{this, "surface_frame_token", kNullable};
  UInt32Column upid{this, "upid"};
  StringColumn layer_name{this, "layer_name"};
  // Actual timeline only (NULL on expected rows).
  StringColumn present_type{this, "present_type"};
  Int64Column on_time_finish{this, "on_time_finish", kNullable};
  Int64Column gpu_composition{this, "gpu_composition", kNullable};
  StringColumn jank_type{this, "jank_type"};
  StringColumn jank_severity_type{this, "jank_severity_type"};
  StringColumn prediction_type{this, "prediction_type"};
  StringColumn jank_tag{this, "jank_tag"};
  StringColumn jank_tag_experimental{this, "jank_tag_experimental"};
  DoubleColumn jank_score{this, "jank_score", kNullable};

  struct Row {
    uint32_t slice_id = 0;
    bool expected = false;
    std::optional<int64_t> display_frame_token, surface_frame_token;
    uint32_t upid = 0;
    StringId layer_name = kNullStringId;
    StringId present_type = kNullStringId;
    std::optional<int64_t> on_time_finish, gpu_composition;
    StringId jank_type = kNullStringId, jank_severity_type = kNullStringId,
             prediction_type = kNullStringId, jank_tag = kNullStringId,
             jank_tag_experimental = kNullStringId;
    std::optional<double> jank_score;
  };
  uint32_t Insert(const Row& r) {
    slice_id.Append(r.slice_id);
    is_expected.Append(r.expected ? 1u : 0u);
    display_frame_token.Append(r.display_frame_token);
    surface_frame_token.Append(r.surface_frame_token);
    upid.Append(r.upid);
    layer_name.Append(r.layer_name);
    present_type.Append(r.present_type);
    on_time_finish.Append(r.on_time_finish);
    gpu_composition.Append(r.gpu_composition);
    jank_type.Append(r.jank_type);
    jank_severity_type.Append(r.jank_severity_type);
    prediction_type.Append(r.prediction_type);
    jank_tag.Append(r.jank_tag);
    jank_tag_experimental.Append(r.jank_tag_experimental);
    jank_score.Append(r.jank_score);
    return CommitRow();
  }
};

}  // namespace fathom
