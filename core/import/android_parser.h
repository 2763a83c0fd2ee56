// Android-only packets: logcat (android_logs), system properties
// (debug.tracing.*), the initial display state and the packages list.
#pragma once

#include <cstdint>

#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

class AndroidParser {
 public:
  explicit AndroidParser(TraceContext* ctx);

  // One AndroidLogPacket.LogEvent at trace time `ts`.
  void ParseLogEvent(int64_t ts, proto::Bytes event);
  void ParseSystemProperty(int64_t ts, proto::Bytes payload);
  void ParseInitialDisplayState(int64_t ts, proto::Bytes payload);

 private:
  void PushGlobalCounter(int64_t ts, StringId name, StringId type, double value);

  TraceContext* ctx_;
};

}  // namespace fathom
