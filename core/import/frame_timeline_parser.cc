#include "core/import/frame_timeline_parser.h"

#include <string>

#include "core/import/frame_timeline_strings.h"
#include "core/import/process_tracker.h"
#include "core/import/slice_tracker.h"
#include "core/import/trace_context.h"
#include "core/import/track_tracker.h"
#include "perfetto/trace/android/frame_timeline_event.pb.h"

namespace fathom {
namespace {

using perfetto::protos::FrameTimelineEvent;
using ActualDisplay = FrameTimelineEvent::ActualDisplayFrameStart;
using ActualSurface = FrameTimelineEvent::ActualSurfaceFrameStart;
namespace ft = frame_timeline;

// Newer fields than Fathom's schema subset declares (numbers learned from
// which upstream arg each one fills): the "experimental" jank and present
// types and the jank metadata.
constexpr uint32_t kDisplayJankTypeExperimental = 12;
constexpr uint32_t kDisplayPresentTypeExperimental = 13;
constexpr uint32_t kDisplayJankMetadata = 14;
constexpr uint32_t kSurfaceJankTypeExperimental = 16;
constexpr uint32_t kSurfacePresentTypeExperimental = 17;
constexpr uint32_t kSurfaceJankMetadata = 18;

float Fixed32Float(const proto::Field& f) {
  return f.type == proto::WireType::kFixed32 ? f.as_float() : 0.0f;
}

}  // namespace

FrameTimelineParser::FrameTimelineParser(TraceContext* ctx)
    : ctx_(ctx), storage_(ctx->storage.get()) {}

void FrameTimelineParser::ParseEvent(int64_t ts, proto::Bytes event) {
  proto::Decoder d(event);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case FrameTimelineEvent::kExpectedDisplayFrameStartFieldNumber:
        return StartFrame(ts, DecodeDisplayFrame(f.bytes, /*expected=*/true));
      case FrameTimelineEvent::kActualDisplayFrameStartFieldNumber:
        return StartFrame(ts, DecodeDisplayFrame(f.bytes, /*expected=*/false));
      case FrameTimelineEvent::kExpectedSurfaceFrameStartFieldNumber:
        return StartFrame(ts, DecodeSurfaceFrame(f.bytes, /*expected=*/true));
      case FrameTimelineEvent::kActualSurfaceFrameStartFieldNumber:
        return StartFrame(ts, DecodeSurfaceFrame(f.bytes, /*expected=*/false));
      case FrameTimelineEvent::kFrameEndFieldNumber:
        return EndFrame(ts, f.bytes);
      default:
        break;
    }
  }
}

// Expected and actual display frames share field numbers 1-3; the actual one
// adds the jank fields.
FrameTimelineParser::Frame FrameTimelineParser::DecodeDisplayFrame(proto::Bytes msg,
                                                                   bool expected) {
  Frame fr;
  fr.expected = expected;
  proto::Decoder d(msg);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case ActualDisplay::kCookieFieldNumber:
        fr.cookie = f.as_int64();
        break;
      case ActualDisplay::kTokenFieldNumber:
        fr.token = f.as_int64();
        break;
      case ActualDisplay::kPidFieldNumber:
        fr.pid = f.as_int32();
        break;
      default:
        if (expected) break;
        switch (f.id) {
          case ActualDisplay::kPresentTypeFieldNumber:
            fr.present_type = f.as_int32();
            break;
          case ActualDisplay::kOnTimeFinishFieldNumber:
            fr.on_time_finish = f.as_bool();
            break;
          case ActualDisplay::kGpuCompositionFieldNumber:
            fr.gpu_composition = f.as_bool();
            break;
          case ActualDisplay::kJankTypeFieldNumber:
            fr.jank_type = f.as_int32();
            break;
          case ActualDisplay::kPredictionTypeFieldNumber:
            fr.prediction_type = f.as_int32();
            break;
          case ActualDisplay::kJankSeverityTypeFieldNumber:
            fr.severity = f.as_int32();
            break;
          case ActualDisplay::kPresentDelayMillisFieldNumber:
            fr.present_delay = Fixed32Float(f);
            break;
          case ActualDisplay::kJankSeverityScoreFieldNumber:
            fr.severity_score = Fixed32Float(f);
            break;
          case kDisplayJankTypeExperimental:
            fr.jank_type_experimental = f.as_int32();
            break;
          case kDisplayPresentTypeExperimental:
            fr.present_type_experimental = f.as_int32();
            break;
          case kDisplayJankMetadata:
            fr.jank_metadata = Fixed32Float(f);
            break;
        }
    }
  }
  return fr;
}

// Expected and actual surface frames share field numbers 1-5.
FrameTimelineParser::Frame FrameTimelineParser::DecodeSurfaceFrame(proto::Bytes msg,
                                                                   bool expected) {
  Frame fr;
  fr.expected = expected;
  fr.surface = true;
  proto::Decoder d(msg);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case ActualSurface::kCookieFieldNumber:
        fr.cookie = f.as_int64();
        break;
      case ActualSurface::kTokenFieldNumber:
        fr.token = f.as_int64();
        break;
      case ActualSurface::kDisplayFrameTokenFieldNumber:
        fr.display_token = f.as_int64();
        break;
      case ActualSurface::kPidFieldNumber:
        fr.pid = f.as_int32();
        break;
      case ActualSurface::kLayerNameFieldNumber:
        fr.layer_name = f.as_string();
        break;
      default:
        if (expected) break;
        switch (f.id) {
          case ActualSurface::kPresentTypeFieldNumber:
            fr.present_type = f.as_int32();
            break;
          case ActualSurface::kOnTimeFinishFieldNumber:
            fr.on_time_finish = f.as_bool();
            break;
          case ActualSurface::kGpuCompositionFieldNumber:
            fr.gpu_composition = f.as_bool();
            break;
          case ActualSurface::kJankTypeFieldNumber:
            fr.jank_type = f.as_int32();
            break;
          case ActualSurface::kPredictionTypeFieldNumber:
            fr.prediction_type = f.as_int32();
            break;
          case ActualSurface::kIsBufferFieldNumber:
            fr.is_buffer = f.as_bool();
            break;
          case ActualSurface::kJankSeverityTypeFieldNumber:
            fr.severity = f.as_int32();
            break;
          case ActualSurface::kPresentDelayMillisFieldNumber:
            fr.present_delay = Fixed32Float(f);
            break;
          case ActualSurface::kVsyncResyncedJitterMillisFieldNumber:
            fr.vsync_jitter = Fixed32Float(f);
            break;
          case ActualSurface::kJankSeverityScoreFieldNumber:
            fr.severity_score = Fixed32Float(f);
            break;
          case kSurfaceJankTypeExperimental:
            fr.jank_type_experimental = f.as_int32();
            break;
          case kSurfacePresentTypeExperimental:
            fr.present_type_experimental = f.as_int32();
            break;
          case kSurfaceJankMetadata:
            fr.jank_metadata = Fixed32Float(f);
            break;
        }
    }
  }
  return fr;
}

std::pair<uint32_t, uint32_t> FrameTimelineParser::AcquireTrack(bool expected, uint32_t upid,
                                                                int64_t cookie) {
  std::vector<Slot>& slots = tracks_[{expected, upid}];
  // A second start with a still-open cookie lands on that frame's track
  // (upstream nests it there).
  size_t idx = slots.size();
  for (size_t i = 0; i < slots.size(); ++i) {
    if (slots[i].open_cookie == cookie) {
      idx = i;
      break;
    }
  }
  if (idx == slots.size()) {
    for (size_t i = 0; i < slots.size(); ++i) {
      if (!slots[i].open_cookie) {
        idx = i;
        break;
      }
    }
  }
  if (idx == slots.size()) {
    StringId name = storage_->Intern(expected ? "Expected Timeline" : "Actual Timeline");
    StringId type = storage_->Intern(expected ? "android_expected_frame_timeline"
                                              : "android_actual_frame_timeline");
    uint32_t track =
        ctx_->track_tracker->CreateTrack(false, name, type, std::nullopt, upid, std::nullopt);
    auto dims = ctx_->args_tracker->NewSet();
    dims.AddInt("upid", upid);
    dims.AddInt("track_compressor_idx", static_cast<int64_t>(idx));
    if (auto set = dims.Commit()) storage_->track.dimension_arg_set_id.Set(track, *set);
    // The tracks of one (kind, process) are one track group, numbered when
    // its first track is made.
    uint32_t group = slots.empty() ? ctx_->track_tracker->NewTrackGroup()
                                   : *storage_->track.track_group_id.Get(slots[0].track);
    storage_->track.track_group_id.Set(track, group);
    slots.push_back({track, std::nullopt});
  }
  slots[idx].open_cookie = cookie;
  return {static_cast<uint32_t>(idx), slots[idx].track};
}

ArgsTracker::Builder FrameTimelineParser::ExpectedArgs(const Frame& f) {
  auto args = ctx_->args_tracker->NewSet();
  if (f.surface) {
    args.AddInt("Surface frame token", *f.token);
    args.AddInt("Display frame token", *f.display_token);
    if (f.layer_name) args.AddString("Layer name", *f.layer_name);
  } else {
    args.AddInt("Display frame token", *f.token);
  }
  return args;
}

// In upstream's order.
ArgsTracker::Builder FrameTimelineParser::ActualArgs(const Frame& f, const char* jank_tag,
                                                     const char* jank_tag_experimental) {
  auto args = ctx_->args_tracker->NewSet();
  if (f.surface) {
    args.AddInt("Surface frame token", *f.token);
    args.AddInt("Display frame token", *f.display_token);
    args.AddReal("Present Delay (ms)", f.present_delay);
    args.AddReal("Vsync Resynced Jitter (ms)", f.vsync_jitter);
    if (f.layer_name) args.AddString("Layer name", *f.layer_name);
  } else {
    args.AddInt("Display frame token", *f.token);
    args.AddReal("Present Delay (ms)", f.present_delay);
  }
  args.AddString("Present type", ft::PresentTypeString(f.present_type.value_or(0)));
  args.AddString("Present type (experimental)",
                 ft::PresentTypeString(f.present_type_experimental.value_or(0)));
  args.AddInt("On time finish", f.on_time_finish);
  args.AddInt("GPU composition", f.gpu_composition);
  args.AddString("Jank type", ft::JankTypeString(f.jank_type));
  args.AddString("Jank type (experimental)", ft::JankTypeString(f.jank_type_experimental));
  args.AddString("Jank severity type", ft::JankSeverityString(f.severity, f.jank_type));
  args.AddReal("Jank Severity Score", f.severity_score);
  args.AddString("Prediction type", ft::PredictionTypeString(f.prediction_type.value_or(0)));
  args.AddString("Jank tag", jank_tag);
  args.AddString("Jank tag (experimental)", jank_tag_experimental);
  if (f.surface) {
    args.AddString("Is Buffer?", !f.is_buffer ? "Unspecified" : *f.is_buffer ? "Yes" : "No");
  }
  args.AddReal("Jank Metadata (debugging only)", f.jank_metadata);
  return args;
}

void FrameTimelineParser::StartFrame(int64_t ts, const Frame& f) {
  // Upstream drops frames it cannot place or name; a surface frame must say
  // which display frame it belongs to.
  if (!f.cookie || !f.token || !f.pid || (f.surface && !f.display_token)) {
    storage_->stats.Increment(Stat::kFrameTimelineEventParserErrors);
    return;
  }
  uint32_t upid = ctx_->process_tracker->GetOrCreateProcess(*f.pid);
  // Layers of one app share its frame token: the app's expected timeline
  // shows the token once (upstream keeps the first); the later starts and
  // their ends are ignored without a stat.
  if (f.expected && f.surface && !expected_surface_tokens_.insert({upid, *f.token}).second) {
    ignored_cookies_.insert(*f.cookie);
    return;
  }
  auto [slot, track] = AcquireTrack(f.expected, upid, *f.cookie);
  CheckEnums(f);
  StringId name = storage_->Intern(std::to_string(*f.token));
  const char* jank_tag = f.surface ? ft::SurfaceJankTag(f.jank_type, f.present_type.value_or(0))
                                   : ft::DisplayJankTag(f.jank_type);
  const char* jank_tag_experimental =
      f.surface
          ? ft::SurfaceJankTag(f.jank_type_experimental, f.present_type_experimental.value_or(0))
          : ft::DisplayJankTag(f.jank_type_experimental);
  auto args = f.expected ? ExpectedArgs(f) : ActualArgs(f, jank_tag, jank_tag_experimental);
  std::optional<uint32_t> slice =
      ctx_->slice_tracker->Begin(ts, track, kNullStringId, name, std::move(args));
  open_[*f.cookie] = {f.expected, upid, slot, track, name};
  if (!slice) return;

  FrameTimelineSliceTable::Row row;
  row.slice_id = *slice;
  row.expected = f.expected;
  row.upid = upid;
  if (f.surface) {
    row.display_frame_token = f.display_token;
    row.surface_frame_token = f.token;
    if (f.layer_name) row.layer_name = storage_->Intern(*f.layer_name);
  } else {
    row.display_frame_token = f.token;
  }
  if (!f.expected) {
    row.present_type = storage_->Intern(ft::PresentTypeString(f.present_type.value_or(0)));
    row.on_time_finish = f.on_time_finish;
    row.gpu_composition = f.gpu_composition;
    row.jank_type = storage_->Intern(ft::JankTypeString(f.jank_type));
    row.jank_severity_type = storage_->Intern(ft::JankSeverityString(f.severity, f.jank_type));
    row.prediction_type = storage_->Intern(ft::PredictionTypeString(f.prediction_type.value_or(0)));
    row.jank_tag = storage_->Intern(jank_tag);
    row.jank_tag_experimental = storage_->Intern(jank_tag_experimental);
    row.jank_score = f.severity_score;
  }
  storage_->frame_timeline_slice.Insert(row);

  if (f.expected) return;
  if (f.surface) {
    pending_surfaces_[*f.display_token].push_back(*slice);
  } else {
    LinkSurfaceFrames(*f.token, *slice);
  }
}

// Upstream counts each explicit present or prediction type outside its enum
// (0, "unspecified", included) as a parser error but keeps the frame.
void FrameTimelineParser::CheckEnums(const Frame& f) {
  auto bad = [](const std::optional<int32_t>& v, int32_t max) { return v && (*v < 1 || *v > max); };
  int errors =
      bad(f.present_type, 5) + bad(f.prediction_type, 3) + bad(f.present_type_experimental, 5);
  for (int i = 0; i < errors; ++i) storage_->stats.Increment(Stat::kFrameTimelineEventParserErrors);
}

// A display frame's arrival links the app frames that named it before; app
// frames naming it later get no flow (as upstream).
void FrameTimelineParser::LinkSurfaceFrames(int64_t display_token, uint32_t display_slice) {
  auto it = pending_surfaces_.find(display_token);
  if (it == pending_surfaces_.end()) return;
  for (uint32_t surface : it->second) storage_->flow.Insert(surface, display_slice);
  pending_surfaces_.erase(it);
}

void FrameTimelineParser::EndFrame(int64_t ts, proto::Bytes msg) {
  std::optional<int64_t> cookie;
  proto::Decoder d(msg);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == FrameTimelineEvent::FrameEnd::kCookieFieldNumber) cookie = f.as_int64();
  }
  if (cookie && ignored_cookies_.erase(*cookie)) return;
  auto it = cookie ? open_.find(*cookie) : open_.end();
  if (it == open_.end()) {
    storage_->stats.Increment(Stat::kFrameTimelineUnpairedEndEvent);
    return;
  }
  const OpenFrame& open = it->second;
  ctx_->slice_tracker->End(ts, open.track, kNullStringId, open.name);
  Slot& slot = tracks_[{open.expected, open.upid}][open.slot];
  if (slot.open_cookie == *cookie) slot.open_cookie.reset();
  open_.erase(it);
}

}  // namespace fathom
