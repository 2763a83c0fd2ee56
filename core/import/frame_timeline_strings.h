// How upstream Perfetto spells FrameTimeline values in args and in the
// actual_frame_timeline_slice columns (learned from trace_processor_shell
// v58.2 on generated traces): jank-type bitmasks, present/prediction types,
// severities and the derived "jank tag".
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace fathom::frame_timeline {

// FrameTimelineEvent.JankType bits (a frame's jank_type is a bitmask).
enum JankBits : int32_t {
  kJankNone = 1,
  kJankSfScheduling = 2,
  kJankPredictionError = 4,
  kJankDisplayHal = 8,
  kJankSfCpuDeadlineMissed = 16,
  kJankSfGpuDeadlineMissed = 32,
  kJankAppDeadlineMissed = 64,
  kJankBufferStuffing = 128,
  kJankUnknown = 256,
  kJankSfStuffing = 512,
  kJankDropped = 1024,
  kJankNonAnimating = 2048,
  kJankAppResyncedJitter = 4096,
  kJankDisplayNotOn = 8192,
};
constexpr int32_t kPresentDropped = 4;  // FrameTimelineEvent.PresentType

// "Unspecified" for 0, "None" for JANK_NONE alone, else the names of the set
// bits joined by ", " (JANK_NONE and bits with no name are left out, so
// unknown bits alone give "").
std::string JankTypeString(int32_t jank_type);
const char* PresentTypeString(int32_t present_type);
const char* PredictionTypeString(int32_t prediction_type);
// An explicit severity is spelled out; without one a frame with no jank is
// "None" and any other "Unknown".
const char* JankSeverityString(std::optional<int32_t> severity, int32_t jank_type);
// SurfaceFlinger's own frames blame themselves for SurfaceFlinger-side jank;
// an app's frames blame themselves for app-side jank and "others" for
// SurfaceFlinger-side jank.
const char* DisplayJankTag(int32_t jank_type);
const char* SurfaceJankTag(int32_t jank_type, int32_t present_type);

}  // namespace fathom::frame_timeline
