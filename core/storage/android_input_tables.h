// Android input tracing (the android.input.inputevent data source): one row
// per key event, motion event and per-window dispatch that InputDispatcher
// traced. Each row's arg_set_id holds the whole event proto flattened into
// `args`; base64_proto_id is the string pool id of the event's serialized
// proto in base64 (as upstream, for tools that re-decode the raw event).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "core/storage/column.h"

namespace fathom {

// Columns shared by the key and motion event tables, as upstream orders them.
struct AndroidInputEventRow {
  int64_t event_id = 0;
  int64_t ts = 0;
  std::optional<uint32_t> arg_set_id;
  StringId base64_proto = kNullStringId;
  int64_t source = 0, action = 0, device_id = 0, display_id = 0;
  int64_t key_code = 0;  // key events only
};

// The key and motion event tables' shared columns, in upstream's order.
struct AndroidInputEventsTable : Table {
  explicit AndroidInputEventsTable(std::string name) : Table(std::move(name)) {}
  IdColumn id{this, "id"};
  Int64Column event_id{this, "event_id"};
  Int64Column ts{this, "ts"};
  UInt32Column arg_set_id{this, "arg_set_id", kNullable};
  Int64Column base64_proto_id{this, "base64_proto_id", kNullable};
  Int64Column source{this, "source"};
  Int64Column action{this, "action"};
  Int64Column device_id{this, "device_id"};
  Int64Column display_id{this, "display_id"};

 protected:
  void AppendShared(const AndroidInputEventRow& r) {
    event_id.Append(r.event_id);
    ts.Append(r.ts);
    arg_set_id.Append(r.arg_set_id);
    base64_proto_id.Append(static_cast<int64_t>(r.base64_proto));
    source.Append(r.source);
    action.Append(r.action);
    device_id.Append(r.device_id);
    display_id.Append(r.display_id);
  }
};

struct AndroidKeyEventsTable : AndroidInputEventsTable {
  AndroidKeyEventsTable() : AndroidInputEventsTable("__intrinsic_android_key_events") {}
  Int64Column key_code{this, "key_code"};

  uint32_t Insert(const AndroidInputEventRow& r) {
    AppendShared(r);
    key_code.Append(r.key_code);
    return CommitRow();
  }
};

struct AndroidMotionEventsTable : AndroidInputEventsTable {
  AndroidMotionEventsTable() : AndroidInputEventsTable("__intrinsic_android_motion_events") {}

  uint32_t Insert(const AndroidInputEventRow& r) {
    AppendShared(r);
    return CommitRow();
  }
};

// One row per window an event was dispatched to (no timestamp column, as
// upstream's table).
struct AndroidInputEventDispatchTable : Table {
  AndroidInputEventDispatchTable() : Table("__intrinsic_android_input_event_dispatch") {}
  IdColumn id{this, "id"};
  Int64Column event_id{this, "event_id"};
  UInt32Column arg_set_id{this, "arg_set_id", kNullable};
  Int64Column vsync_id{this, "vsync_id"};
  Int64Column window_id{this, "window_id"};
  Int64Column base64_proto_id{this, "base64_proto_id", kNullable};

  struct Row {
    int64_t event_id = 0;
    std::optional<uint32_t> arg_set_id;
    int64_t vsync_id = 0, window_id = 0;
    StringId base64_proto = kNullStringId;
  };
  uint32_t Insert(const Row& r) {
    event_id.Append(r.event_id);
    arg_set_id.Append(r.arg_set_id);
    vsync_id.Append(r.vsync_id);
    window_id.Append(r.window_id);
    base64_proto_id.Append(static_cast<int64_t>(r.base64_proto));
    return CommitRow();
  }
};

struct AndroidInputTables {
  AndroidKeyEventsTable key_events;
  AndroidMotionEventsTable motion_events;
  AndroidInputEventDispatchTable dispatch;
};

}  // namespace fathom
