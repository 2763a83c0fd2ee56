// SurfaceFlinger FrameTimeline events (TracePacket.frame_timeline_event,
// Android 12+) into "Expected Timeline" / "Actual Timeline" slices of the
// frames' processes, the frame_timeline_slice columns behind
// expected_frame_timeline_slice / actual_frame_timeline_slice, and flows from
// each app (surface) frame to the SurfaceFlinger (display) frame that
// composited it.
//
// A frame is a start event (with all its values) and a FrameEnd carrying the
// same cookie. Frames of one process and timeline that overlap go on separate
// tracks, as upstream's track compressor does: a start takes the first track
// of its (process, timeline) with no frame open, and each track's dimension
// args say its index (track_compressor_idx).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/import/args_tracker.h"
#include "core/import/proto_decoder.h"
#include "core/storage/trace_storage.h"

namespace fathom {

struct TraceContext;

class FrameTimelineParser {
 public:
  explicit FrameTimelineParser(TraceContext* ctx);

  // `event` is a FrameTimelineEvent message.
  void ParseEvent(int64_t ts, proto::Bytes event);

 private:
  // The values of any of the four start messages (absent fields keep their
  // defaults, as upstream reads them).
  struct Frame {
    bool expected = false;
    bool surface = false;
    std::optional<int64_t> cookie, token, display_token, pid;
    std::optional<std::string_view> layer_name;
    int32_t jank_type = 0, jank_type_experimental = 0;
    // Explicit values outside the enum (0 included) count as parser errors.
    std::optional<int32_t> present_type, prediction_type, present_type_experimental;
    bool on_time_finish = false, gpu_composition = false;
    std::optional<bool> is_buffer;
    std::optional<int32_t> severity;
    float present_delay = 0, vsync_jitter = 0, severity_score = 0, jank_metadata = 0;
  };
  static Frame DecodeDisplayFrame(proto::Bytes msg, bool expected);
  static Frame DecodeSurfaceFrame(proto::Bytes msg, bool expected);

  void StartFrame(int64_t ts, const Frame& f);
  void EndFrame(int64_t ts, proto::Bytes msg);
  // The track a new frame goes on (see the file comment); remembers `cookie`
  // as open on it.
  std::pair<uint32_t, uint32_t> AcquireTrack(bool expected, uint32_t upid, int64_t cookie);
  ArgsTracker::Builder ExpectedArgs(const Frame& f);
  ArgsTracker::Builder ActualArgs(const Frame& f, const char* jank_tag,
                                  const char* jank_tag_experimental);
  // Counts the frame's out-of-enum present/prediction types as errors.
  void CheckEnums(const Frame& f);
  void LinkSurfaceFrames(int64_t display_token, uint32_t display_slice);

  TraceContext* ctx_;
  TraceStorage* storage_;

  struct Slot {
    uint32_t track = 0;
    std::optional<int64_t> open_cookie;
  };
  // (expected?, upid) -> that timeline's tracks, by compressor index.
  std::map<std::pair<bool, uint32_t>, std::vector<Slot>> tracks_;
  struct OpenFrame {
    bool expected;
    uint32_t upid;
    uint32_t slot;
    uint32_t track;
    StringId name;
  };
  std::unordered_map<int64_t, OpenFrame> open_;  // by cookie
  // (upid, token) of the expected surface frames shown so far, and the
  // cookies of the duplicate starts that were skipped.
  std::set<std::pair<uint32_t, int64_t>> expected_surface_tokens_;
  std::unordered_set<int64_t> ignored_cookies_;
  // Actual surface frames waiting for their display frame, by its token.
  std::unordered_map<int64_t, std::vector<uint32_t>> pending_surfaces_;
};

}  // namespace fathom
