#include "core/import/concurrent_session_parser.h"

#include <string>

#include "core/import/args_tracker.h"
#include "core/import/track_tracker.h"

namespace fathom {
namespace {

// ConcurrentSessionEvent fields and its State enum (upstream numbering).
constexpr uint32_t kStateField = 1;
constexpr uint32_t kSessionNameField = 2;
constexpr uint32_t kSessionIdField = 3;
constexpr uint32_t kConsumerUidField = 4;
constexpr uint32_t kNumDataSourcesField = 5;
constexpr uint64_t kStateDisabled = 1;
constexpr uint64_t kStateClonedReadOnly = 5;

// The state's name as the state rows show it; nullptr for values this
// version does not know (such events are skipped).
const char* StateName(uint64_t state) {
  switch (state) {
    case 1:
      return "DISABLED";
    case 2:
      return "CONFIGURED";
    case 3:
      return "STARTED";
    case 4:
      return "DISABLING_WAITING_STOP_ACKS";
    case kStateClonedReadOnly:
      return "CLONED_READ_ONLY";
    default:
      return nullptr;
  }
}

}  // namespace

uint32_t ConcurrentSessionParser::TrackFor(uint64_t session_id, std::string_view name, bool clone) {
  auto it = sessions_.find(session_id);
  if (it != sessions_.end()) return it->second.track;
  // Named after the session, or its id when unnamed; a read-only clone of a
  // session is marked so it is not mistaken for the original.
  std::string track_name =
      name.empty() ? "Session " + std::to_string(session_id) : std::string(name);
  if (clone) track_name += " (clone)";
  TraceStorage* s = ctx_->storage.get();
  uint32_t track = ctx_->track_tracker->CreateTrack(false, s->Intern(track_name),
                                                    s->Intern("concurrent_tracing_sessions"),
                                                    std::nullopt, std::nullopt, std::nullopt);
  s->track.event_type.Set(track, s->Intern("state"));
  auto dims = ctx_->args_tracker->NewSet();
  dims.AddInt("session_id", static_cast<int64_t>(session_id));
  if (auto set = dims.Commit()) s->track.dimension_arg_set_id.Set(track, *set);
  sessions_[session_id].track = track;
  return track;
}

void ConcurrentSessionParser::Parse(int64_t ts, proto::Bytes payload) {
  uint64_t state = 0, session_id = 0;
  int64_t consumer_uid = 0, num_data_sources = 0;
  std::string_view name;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case kStateField:
        state = f.as_uint64();
        break;
      case kSessionNameField:
        name = f.as_string();
        break;
      case kSessionIdField:
        session_id = f.as_uint64();
        break;
      case kConsumerUidField:
        consumer_uid = f.as_int64();
        break;
      case kNumDataSourcesField:
        num_data_sources = f.as_int64();
        break;
    }
  }
  const char* state_name = StateName(state);
  if (!state_name) return;
  TraceStorage* s = ctx_->storage.get();
  uint32_t track = TrackFor(session_id, name, state == kStateClonedReadOnly);
  Session& session = sessions_[session_id];
  auto args = ctx_->args_tracker->NewSet();
  args.AddInt("consumer_uid", consumer_uid);
  args.AddInt("num_data_sources", num_data_sources);
  std::optional<uint32_t> set = args.Commit();
  StringId value = s->Intern(state_name);
  StateTable& rows = s->state;
  if (session.last_row && rows.value[*session.last_row] == value) {
    // A repeated state continues the current row; its details are the latest.
    if (set) rows.arg_set_id.Set(*session.last_row, *set);
    return;
  }
  if (session.last_row) rows.dur.Set(*session.last_row, ts - rows.ts[*session.last_row]);
  uint32_t row = rows.Insert(ts, track, kNullStringId, value);
  // The session ends with DISABLED: a point, not an open-ended state.
  if (state == kStateDisabled) rows.dur.Set(row, 0);
  if (set) rows.arg_set_id.Set(row, *set);
  session.last_row = row;
  s->UpdateBounds(ts);
}

}  // namespace fathom
