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

}  // namespace

AndroidParser::AndroidParser(TraceContext* ctx) : ctx_(ctx) {}

void AndroidParser::PushGlobalCounter(int64_t ts, StringId name, StringId type, double value) {
  uint32_t track = ctx_->track_tracker->InternGlobalCounterTrack(name, type);
  ctx_->track_tracker->PushCounter(ts, value, track);
}

void AndroidParser::ParseAndroidLog(proto::Bytes payload) {
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next())
    if (f.id == pp::AndroidLogPacket::kEventsFieldNumber) ParseLogEvent(f.bytes);
}

void AndroidParser::ParseLogEvent(proto::Bytes event) {
  using E = pp::AndroidLogPacket::LogEvent;
  TraceStorage* s = ctx_->storage.get();
  int64_t pid = 0, tid = 0, prio = 0;
  uint64_t realtime_ns = 0;
  std::string_view tag, message;
  std::string args_text;  // binary (event-log) entries carry args, not a message
  proto::Decoder d(event);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case E::kPidFieldNumber:
        pid = f.as_int32();
        break;
      case E::kTidFieldNumber:
        tid = f.as_int32();
        break;
      case E::kTimestampFieldNumber:
        realtime_ns = f.as_uint64();
        break;
      case E::kTagFieldNumber:
        tag = f.as_string();
        break;
      case E::kPrioFieldNumber:
        prio = f.as_int64();
        break;
      case E::kMessageFieldNumber:
        message = f.as_string();
        break;
      case E::kArgsFieldNumber: {
        std::string name, value;
        proto::Decoder a(f.bytes);
        for (proto::Field g = a.Next(); g.valid(); g = a.Next()) {
          if (g.id == E::Arg::kNameFieldNumber) name = g.as_string();
          if (g.id == E::Arg::kIntValueFieldNumber) value = std::to_string(g.as_int64());
          if (g.id == E::Arg::kFloatValueFieldNumber) value = std::to_string(g.as_float());
          if (g.id == E::Arg::kStringValueFieldNumber)
            value = std::string(1, '"').append(g.as_string()).append(1, '"');
        }
        if (!args_text.empty()) args_text += ' ';
        args_text += name + "=" + value;
        break;
      }
    }
  }
  // Log timestamps are wall-clock (REALTIME): convert to the trace clock.
  auto ts = ctx_->clock_tracker->ToTraceTime(kClockRealtime, static_cast<int64_t>(realtime_ns));
  if (!ts) {
    s->stats.Increment(Stat::kClockSyncFailure);
    return;
  }
  uint32_t utid = ctx_->process_tracker->UpdateThread(tid, pid);
  StringId msg = message.empty() && !args_text.empty() ? s->Intern(args_text) : s->Intern(message);
  s->android_logs.Insert(*ts, utid, prio, s->Intern(tag), msg);
  s->UpdateBounds(*ts);
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
