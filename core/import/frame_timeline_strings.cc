#include "core/import/frame_timeline_strings.h"

#include <iterator>

namespace fathom::frame_timeline {
namespace {

struct BitName {
  int32_t bit;
  const char* name;
};
// In bit order, which is the order upstream lists them in.
constexpr BitName kJankNames[] = {
    {kJankSfScheduling, "SurfaceFlinger Scheduling"},
    {kJankPredictionError, "Prediction Error"},
    {kJankDisplayHal, "Display HAL"},
    {kJankSfCpuDeadlineMissed, "SurfaceFlinger CPU Deadline Missed"},
    {kJankSfGpuDeadlineMissed, "SurfaceFlinger GPU Deadline Missed"},
    {kJankAppDeadlineMissed, "App Deadline Missed"},
    {kJankBufferStuffing, "Buffer Stuffing"},
    {kJankUnknown, "Unknown Jank"},
    {kJankSfStuffing, "SurfaceFlinger Stuffing"},
    {kJankDropped, "Dropped Frame"},
    {kJankNonAnimating, "Non Animating"},
    {kJankAppResyncedJitter, "App Resynced Jitter"},
    {kJankDisplayNotOn, "Display not ON"},
    {16384, "ModeChange in progress"},
    {32768, "PowerModeChange in progress"},
};

constexpr int32_t kSurfaceFlingerJank = kJankSfScheduling | kJankPredictionError | kJankDisplayHal |
                                        kJankSfCpuDeadlineMissed | kJankSfGpuDeadlineMissed;
constexpr int32_t kAppJank = kJankAppDeadlineMissed | kJankUnknown | kJankAppResyncedJitter;

bool NonPerceivable(int32_t jank_type) {
  return jank_type == kJankNonAnimating || jank_type == kJankDisplayNotOn;
}

}  // namespace

std::string JankTypeString(int32_t jank_type) {
  if (jank_type == 0) return "Unspecified";
  if (jank_type == kJankNone) return "None";
  std::string out;
  for (const BitName& b : kJankNames) {
    if (!(jank_type & b.bit)) continue;
    if (!out.empty()) out += ", ";
    out += b.name;
  }
  return out;
}

const char* PresentTypeString(int32_t present_type) {
  static constexpr const char* kNames[] = {"Unspecified Present", "On-time Present",
                                           "Late Present",        "Early Present",
                                           "Dropped Frame",       "Unknown Present"};
  if (present_type < 0 || present_type >= static_cast<int32_t>(std::size(kNames))) return kNames[0];
  return kNames[present_type];
}

const char* PredictionTypeString(int32_t prediction_type) {
  static constexpr const char* kNames[] = {"Unspecified Prediction", "Valid Prediction",
                                           "Expired Prediction", "Unknown Prediction"};
  if (prediction_type < 0 || prediction_type >= static_cast<int32_t>(std::size(kNames)))
    return kNames[0];
  return kNames[prediction_type];
}

const char* JankSeverityString(std::optional<int32_t> severity, int32_t jank_type) {
  if (!severity) return jank_type == kJankNone ? "None" : "Unknown";
  switch (*severity) {
    case 1:
      return "None";
    case 2:
      return "Partial";
    case 3:
      return "Full";
    default:
      return "Unknown";
  }
}

const char* DisplayJankTag(int32_t jank_type) {
  if (jank_type == 0) return "Unspecified";
  if (jank_type & kSurfaceFlingerJank) return "Self Jank";
  if (jank_type == kJankSfStuffing) return "SurfaceFlinger Stuffing";
  if (jank_type == kJankDropped) return "Dropped Frame";
  if (NonPerceivable(jank_type)) return "Non-perceivable Jank";
  return "No Jank";
}

const char* SurfaceJankTag(int32_t jank_type, int32_t present_type) {
  if (jank_type == 0) return "Unspecified";
  if (jank_type & kAppJank) return "Self Jank";
  if (jank_type & kSurfaceFlingerJank) return "Other Jank";
  // A surface frame's own "dropped" bit is not a tag; being presented as
  // dropped is.
  if (present_type == kPresentDropped) return "Dropped Frame";
  if (jank_type == kJankSfStuffing) return "SurfaceFlinger Stuffing";
  if (jank_type == kJankBufferStuffing) return "Buffer Stuffing";
  if (NonPerceivable(jank_type)) return "Non-perceivable Jank";
  return "No Jank";
}

}  // namespace fathom::frame_timeline
