#include "core/import/android_input_events.h"

#include <optional>
#include <string>

#include "core/base/base64.h"
#include "core/import/args_tracker.h"
#include "core/import/clock_tracker.h"
#include "core/import/proto_to_args.h"
#include "core/import/trace_context.h"
#include "perfetto/trace/android/android_input_event.pb.h"

namespace fathom {
namespace {

using perfetto::protos::AndroidInputEvent;
using perfetto::protos::AndroidKeyEvent;
using perfetto::protos::AndroidMotionEvent;
using perfetto::protos::AndroidWindowInputDispatchEvent;

// The event's own times are CLOCK_MONOTONIC nanoseconds; upstream adds them
// in trace time as the args kernel_time and down_time (when the conversion
// succeeds, else the failure is counted as any clock sync failure).
void AddTraceTimeArg(TraceContext* ctx, const char* key, int64_t monotonic_ns,
                     ArgsTracker::Builder& args) {
  ClockTracker* clocks = ctx->clock_tracker.get();
  std::optional<int64_t> ts = clocks->ToTraceTime(kClockMonotonic, monotonic_ns);
  if (!ts) {
    ctx->storage->stats.Increment(clocks->Knows(kClockMonotonic)
                                      ? Stat::kClockSyncFailure
                                      : Stat::kClockSyncFailureUnknownSourceClock);
    return;
  }
  args.AddInt(key, *ts);
}

StringId InternBase64(TraceContext* ctx, proto::Bytes raw) {
  return ctx->storage->Intern(Base64Encode(raw.AsString()));
}

void ParseKeyEvent(TraceContext* ctx, int64_t ts, proto::Bytes raw) {
  using K = AndroidKeyEvent;
  proto::FlatMessage<K::kPolicyFlagsFieldNumber + 1> m(raw);
  ArgsTracker::Builder args = ctx->args_tracker->NewSet();
  if (!ProtoToArgs(K::descriptor(), raw, args))
    ctx->storage->stats.Increment(Stat::kProtoDecodeErrors);
  AddTraceTimeArg(ctx, "kernel_time", m[K::kEventTimeNanosFieldNumber].as_int64(), args);
  AddTraceTimeArg(ctx, "down_time", m[K::kDownTimeNanosFieldNumber].as_int64(), args);
  AndroidInputEventRow row;
  row.event_id = m[K::kEventIdFieldNumber].as_uint32();
  row.ts = ts;
  row.arg_set_id = args.Commit();
  row.base64_proto = InternBase64(ctx, raw);
  row.source = m[K::kSourceFieldNumber].as_uint32();
  row.action = m[K::kActionFieldNumber].as_int32();
  row.device_id = m[K::kDeviceIdFieldNumber].as_int32();
  row.display_id = m[K::kDisplayIdFieldNumber].as_sint32();
  row.key_code = m[K::kKeyCodeFieldNumber].as_int32();
  ctx->storage->android_input.key_events.Insert(row);
}

void ParseMotionEvent(TraceContext* ctx, int64_t ts, proto::Bytes raw) {
  using M = AndroidMotionEvent;
  proto::FlatMessage<M::kPrecisionYFieldNumber + 1> m(raw);
  ArgsTracker::Builder args = ctx->args_tracker->NewSet();
  if (!ProtoToArgs(M::descriptor(), raw, args))
    ctx->storage->stats.Increment(Stat::kProtoDecodeErrors);
  AddTraceTimeArg(ctx, "kernel_time", m[M::kEventTimeNanosFieldNumber].as_int64(), args);
  AddTraceTimeArg(ctx, "down_time", m[M::kDownTimeNanosFieldNumber].as_int64(), args);
  AndroidInputEventRow row;
  row.event_id = m[M::kEventIdFieldNumber].as_uint32();
  row.ts = ts;
  row.arg_set_id = args.Commit();
  row.base64_proto = InternBase64(ctx, raw);
  row.source = m[M::kSourceFieldNumber].as_uint32();
  row.action = m[M::kActionFieldNumber].as_int32();
  row.device_id = m[M::kDeviceIdFieldNumber].as_int32();
  row.display_id = m[M::kDisplayIdFieldNumber].as_sint32();
  ctx->storage->android_input.motion_events.Insert(row);
}

void ParseDispatch(TraceContext* ctx, proto::Bytes raw) {
  using D = AndroidWindowInputDispatchEvent;
  proto::FlatMessage<D::kResolvedFlagsFieldNumber + 1> m(raw);
  ArgsTracker::Builder args = ctx->args_tracker->NewSet();
  if (!ProtoToArgs(D::descriptor(), raw, args))
    ctx->storage->stats.Increment(Stat::kProtoDecodeErrors);
  AndroidInputEventDispatchTable::Row row;
  row.event_id = m[D::kEventIdFieldNumber].as_uint32();
  row.arg_set_id = args.Commit();
  row.vsync_id = m[D::kVsyncIdFieldNumber].as_int64();
  row.window_id = m[D::kWindowIdFieldNumber].as_int32();
  row.base64_proto = InternBase64(ctx, raw);
  ctx->storage->android_input.dispatch.Insert(row);
}

}  // namespace

void ParseAndroidInputEvent(TraceContext* ctx, int64_t ts, proto::Bytes event) {
  proto::Decoder d(event);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.type != proto::WireType::kLengthDelimited) continue;
    switch (f.id) {
      case AndroidInputEvent::kDispatcherMotionEventFieldNumber:
      case AndroidInputEvent::kDispatcherMotionEventRedactedFieldNumber:
        ParseMotionEvent(ctx, ts, f.bytes);
        break;
      case AndroidInputEvent::kDispatcherKeyEventFieldNumber:
      case AndroidInputEvent::kDispatcherKeyEventRedactedFieldNumber:
        ParseKeyEvent(ctx, ts, f.bytes);
        break;
      case AndroidInputEvent::kDispatcherWindowDispatchEventFieldNumber:
      case AndroidInputEvent::kDispatcherWindowDispatchEventRedactedFieldNumber:
        ParseDispatch(ctx, f.bytes);
        break;
      default:
        break;
    }
  }
  if (d.error()) ctx->storage->stats.Increment(Stat::kProtoDecodeErrors);
}

}  // namespace fathom
