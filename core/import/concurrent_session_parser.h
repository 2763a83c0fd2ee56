// TracePacket.concurrent_session_event: traced's lifecycle events of the
// other tracing sessions that ran alongside this one. Each session becomes a
// state track (type concurrent_tracing_sessions) whose state rows are the
// session's states.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

class ConcurrentSessionParser {
 public:
  // TracePacket field number of ConcurrentSessionEvent (not in this schema).
  static constexpr uint32_t kFieldNumber = 134;

  explicit ConcurrentSessionParser(TraceContext* ctx) : ctx_(ctx) {}
  void Parse(int64_t ts, proto::Bytes payload);

 private:
  struct Session {
    uint32_t track = 0;
    std::optional<uint32_t> last_row;  // its latest state row
  };
  uint32_t TrackFor(uint64_t session_id, std::string_view name, bool clone);

  TraceContext* ctx_;
  std::unordered_map<uint64_t, Session> sessions_;
};

}  // namespace fathom
