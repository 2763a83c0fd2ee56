#include "core/import/journald_parser.h"

#include <optional>
#include <string_view>

#include "core/import/args_tracker.h"
#include "core/import/process_tracker.h"

namespace fathom {
namespace {

enum JournaldField : uint32_t {
  kPid = 1,
  kTid = 2,
  kUid = 3,
  kPrio = 5,
  kTag = 6,
  kMessage = 7,
  kComm = 8,
  kSystemdUnit = 10,
  kHostname = 11,
  kTransport = 12,
  kNumTotal = 20,
  kNumFailed = 21,
};

struct Entry {
  std::optional<int64_t> pid, tid, uid;
  int64_t prio = 0;
  StringId tag = kNullStringId, msg = kNullStringId;
  std::string_view comm, unit, hostname, transport;
  bool has_comm = false, has_unit = false, has_hostname = false, has_transport = false;
};

}  // namespace

void ParseJournaldEvent(TraceContext* ctx, int64_t ts, proto::Bytes payload) {
  TraceStorage* s = ctx->storage.get();
  Entry e;
  bool has_stats = false;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case kPid:
        e.pid = f.as_int64();
        break;
      case kTid:
        e.tid = f.as_int64();
        break;
      case kUid:
        e.uid = f.as_int64();
        break;
      case kPrio:
        e.prio = f.as_int64();
        break;
      case kTag:
        e.tag = s->Intern(f.as_string());
        break;
      case kMessage:
        e.msg = s->Intern(f.as_string());
        break;
      case kComm:
        e.comm = f.as_string(), e.has_comm = true;
        break;
      case kSystemdUnit:
        e.unit = f.as_string(), e.has_unit = true;
        break;
      case kHostname:
        e.hostname = f.as_string(), e.has_hostname = true;
        break;
      case kTransport:
        e.transport = f.as_string(), e.has_transport = true;
        break;
      case kNumTotal:
        s->stats.Set(Stat::kSystemdJournalNumTotal, f.as_int64());
        has_stats = true;
        break;
      case kNumFailed:
        s->stats.Set(Stat::kSystemdJournalNumFailed, f.as_int64());
        has_stats = true;
        break;
    }
  }
  if (d.error()) {
    s->stats.Increment(Stat::kProtoDecodeErrors);
    return;
  }
  if (has_stats) return;  // a counters packet, not an entry
  std::optional<uint32_t> utid;
  if (e.pid) utid = ctx->process_tracker->UpdateThread(e.tid.value_or(*e.pid), *e.pid);
  auto args = ctx->args_tracker->NewSet();
  if (e.uid) args.AddInt("uid", *e.uid);
  if (e.has_comm) args.AddString("comm", e.comm);
  if (e.has_unit) args.AddString("systemd_unit", e.unit);
  if (e.has_hostname) args.AddString("hostname", e.hostname);
  if (e.has_transport) args.AddString("transport", e.transport);
  const uint32_t row =
      s->android_logs.Insert(ts, utid, e.prio, e.tag, e.msg, s->Intern("systemd_journald"));
  if (auto set = args.Commit()) s->android_logs.arg_set_id.Set(row, *set);
  s->UpdateBounds(ts);
}

}  // namespace fathom
