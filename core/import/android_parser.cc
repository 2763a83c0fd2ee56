#include "core/import/android_parser.h"

#include <charconv>
#include <optional>
#include <string>
#include <string_view>

#include "core/import/clock_tracker.h"
#include "core/import/process_tracker.h"
#include "core/import/slice_tracker.h"
#include "core/import/track_tracker.h"
#include "perfetto/trace/android/android_log.pb.h"
#include "perfetto/trace/android/android_misc.pb.h"

namespace fathom {

namespace pp = perfetto::protos;

namespace {

std::optional<int32_t> ParseInt32(std::string_view s) {
  int32_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// " name=value" of one event-log arg; strings quoted, floats as %f.
void AppendLogArg(proto::Bytes arg, std::string* out) {
  using A = pp::AndroidLogPacket::LogEvent::Arg;
  std::string name, value;
  proto::Decoder a(arg);
  for (proto::Field g = a.Next(); g.valid(); g = a.Next()) {
    if (g.id == A::kNameFieldNumber) name = g.as_string();
    if (g.id == A::kIntValueFieldNumber) value = std::to_string(g.as_int64());
    if (g.id == A::kFloatValueFieldNumber) value = std::to_string(g.as_float());
    if (g.id == A::kStringValueFieldNumber)
      value = std::string(1, '"').append(g.as_string()).append(1, '"');
  }
  out->append(" ").append(name).append("=").append(value);
}

}  // namespace

AndroidParser::AndroidParser(TraceContext* ctx) : ctx_(ctx) {}

void AndroidParser::PushGlobalCounter(int64_t ts, StringId name, StringId type, double value) {
  uint32_t track = ctx_->track_tracker->InternGlobalCounterTrack(name, type);
  ctx_->track_tracker->PushCounter(ts, value, track);
}

void AndroidParser::ParseLogEvent(int64_t ts, proto::Bytes event) {
  using E = pp::AndroidLogPacket::LogEvent;
  TraceStorage* s = ctx_->storage.get();
  int64_t pid = 0, tid = 0;
  int64_t prio = 4;  // INFO when the line says none (binary event-log lines never do)
  std::string_view tag;
  // The message, then each arg of a binary (event-log) line as " name=value".
  std::string msg;
  proto::Decoder d(event);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case E::kPidFieldNumber:
        pid = f.as_int32();
        break;
      case E::kTidFieldNumber:
        tid = f.as_int32();
        break;
      case E::kTagFieldNumber:
        tag = f.as_string();
        break;
      case E::kPrioFieldNumber:
        if (f.as_int64() != 0) prio = f.as_int64();  // 0 is PRIO_UNSPECIFIED
        break;
      case E::kMessageFieldNumber:
        msg.insert(0, f.as_string());
        break;
      case E::kArgsFieldNumber:
        AppendLogArg(f.bytes, &msg);
        break;
    }
  }
  uint32_t utid = ctx_->process_tracker->UpdateThread(tid, pid);
  s->android_logs.Insert(ts, utid, prio, s->Intern(tag), s->Intern(msg), s->Intern("android"));
  s->UpdateBounds(ts);
}

void AndroidParser::ParseSystemProperty(int64_t ts, proto::Bytes payload) {
  using SP = pp::AndroidSystemProperty;
  TraceStorage* s = ctx_->storage.get();
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id != SP::kValuesFieldNumber) continue;
    std::string_view name, value;
    proto::Decoder kv(f.bytes);
    for (proto::Field g = kv.Next(); g.valid(); g = kv.Next()) {
      if (g.id == SP::PropertyValue::kNameFieldNumber) name = g.as_string();
      if (g.id == SP::PropertyValue::kValueFieldNumber) value = g.as_string();
    }
    constexpr std::string_view kPrefix = "debug.tracing.";
    if (name.substr(0, kPrefix.size()) != kPrefix) continue;
    std::string_view key = name.substr(kPrefix.size());

    if (key == "device_state") {
      // An instant on the global DeviceStateChanged track, shared with the
      // atrace "N|...|DeviceStateChanged|..." events.
      uint32_t track = ctx_->track_tracker->InternGlobalTrack(s->Intern("DeviceStateChanged"));
      StringId state = s->Intern(value);
      ctx_->slice_tracker->Begin(ts, track, kNullStringId, state);
      ctx_->slice_tracker->End(ts, track, kNullStringId, state);
      s->UpdateBounds(ts);
      continue;
    }
    auto v = ParseInt32(value);
    if (!v) continue;
    if (key.substr(0, 14) == "battery_stats." || key == "mcc" || key == "mnc" ||
        key == "desktop_mode_visible_tasks") {
      StringId type =
          s->Intern(key.substr(0, 14) == "battery_stats." ? "battery_stats" : "android_telephony");
      PushGlobalCounter(ts, s->Intern(key), type, *v);
    } else if (key == "screen_state") {
      PushGlobalCounter(ts, s->Intern("ScreenState"), s->Intern("screen_state"), *v);
    } else if (key == "plug_type") {
      PushGlobalCounter(ts, s->Intern("PlugType"), s->Intern("plug_type"), *v);
    }
  }
}

void AndroidParser::ParseInitialDisplayState(int64_t ts, proto::Bytes payload) {
  TraceStorage* s = ctx_->storage.get();
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == pp::InitialDisplayState::kDisplayStateFieldNumber)
      PushGlobalCounter(ts, s->Intern("ScreenState"), s->Intern("screen_state"), f.as_int32());
  }
}

}  // namespace fathom
