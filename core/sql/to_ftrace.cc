#include "core/sql/to_ftrace.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string_view>
#include <vector>

namespace fathom {
namespace {

// Args whose kernel format prints flag names rather than numbers. Only the
// value every trace has (0) is decoded; others print as hex like the kernel
// does for unknown bits.
std::string FormatGfpFlags(uint64_t v) {
  if (v == 0) return "GFP_NOWAIT";
  char buf[32];
  snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

// Appends " label=value" for args row `row`.
void AppendArg(const TraceStorage& s, uint32_t row, std::string_view label, std::string* out) {
  const ArgsTable& args = s.args;
  std::string_view key = s.GetString(args.key[row]);
  std::string_view type = s.GetString(args.value_type[row]);
  out->push_back(' ');
  out->append(label);
  out->push_back('=');
  auto iv = args.int_value.Get(row);
  if (key == "gfp_flags" && iv) {
    out->append(FormatGfpFlags(static_cast<uint64_t>(*iv)));
  } else if (iv && type == "uint") {
    out->append(std::to_string(static_cast<uint64_t>(*iv)));
  } else if (iv) {
    out->append(std::to_string(*iv));
  } else if (args.display_value[row] != kNullStringId) {
    out->append(s.GetString(args.display_value[row]));
  }
}

// Events whose kernel format orders or names fields unlike their proto
// message: the fields printed (when present), in the kernel's order, with
// the kernel's label. cgroup_attach_task has two kernel formats: older kernels
// print the cgroup name (proto `cname`) as "cgroup", newer ones print
// dst_level and dst_path instead; both print pid and comm last.
struct FieldLabel {
  std::string_view key;
  std::string_view label;
};
struct EventFormat {
  std::string_view event;
  std::vector<FieldLabel> fields;
};
const std::vector<EventFormat>& EventFormats() {
  static const std::vector<EventFormat> kFormats = {
      {"cgroup_attach_task",
       {{"dst_root", "dst_root"},
        {"dst_id", "dst_id"},
        {"cname", "cgroup"},
        {"dst_level", "dst_level"},
        {"dst_path", "dst_path"},
        {"pid", "pid"},
        {"comm", "comm"}}},
  };
  return kFormats;
}

void AppendArgs(const TraceStorage& s, std::string_view event, uint32_t set, std::string* out) {
  const ArgsTable& args = s.args;
  const auto& sets = args.arg_set_id.data();
  auto lo = std::lower_bound(sets.begin(), sets.end(), set);
  auto hi = std::upper_bound(lo, sets.end(), set);
  auto first = static_cast<uint32_t>(lo - sets.begin());
  auto last = static_cast<uint32_t>(hi - sets.begin());
  for (const EventFormat& format : EventFormats()) {
    if (format.event != event) continue;
    for (const FieldLabel& field : format.fields) {
      for (uint32_t row = first; row < last; ++row) {
        if (s.GetString(args.key[row]) != field.key) continue;
        AppendArg(s, row, field.label, out);
        break;
      }
    }
    return;
  }
  for (uint32_t row = first; row < last; ++row) AppendArg(s, row, s.GetString(args.key[row]), out);
}

void ToFtrace(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto* storage = static_cast<TraceStorage*>(sqlite3_user_data(ctx));
  if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER) {
    sqlite3_result_null(ctx);
    return;
  }
  int64_t id = sqlite3_value_int64(argv[0]);
  if (id < 0 || id >= static_cast<int64_t>(storage->ftrace_event.row_count())) {
    sqlite3_result_null(ctx);
    return;
  }
  std::string line = FormatFtraceEventLine(*storage, static_cast<uint32_t>(id));
  sqlite3_result_text(ctx, line.data(), static_cast<int>(line.size()), SQLITE_TRANSIENT);
}

}  // namespace

std::string FormatFtraceEventLine(const TraceStorage& s, uint32_t row) {
  const FtraceEventTable& ev = s.ftrace_event;
  if (row >= ev.row_count()) return {};
  s.args.EnsureMaterialized();  // arg set ids are final from here (ArgsTable)
  uint32_t utid = ev.utid[row];
  std::string comm = "<unknown>";
  int64_t tid = 0;
  std::string tgid = "-----";
  if (utid < s.thread.row_count()) {
    tid = s.thread.tid[utid];
    if (s.thread.name[utid] != kNullStringId) comm = std::string(s.GetString(s.thread.name[utid]));
    if (auto upid = s.thread.upid.Get(utid)) tgid = std::to_string(s.process.pid[*upid]);
  }
  // Kernel-style irq/preempt flags column; unknown without common_flags.
  std::string flags = "....";
  if (auto cf = ev.common_flags.Get(row)) {
    uint32_t f = *cf;
    flags[0] = (f & 0x01) ? 'd' : '.';  // irqs off
    flags[1] = (f & 0x08) ? 'N' : '.';  // need resched
    flags[2] = (f & 0x10) && (f & 0x20) ? 'H' : (f & 0x10) ? 'h' : (f & 0x20) ? 's' : '.';
    flags[3] = '.';
  }
  int64_t ts = ev.ts[row];
  char head[160];
  snprintf(head, sizeof head,
           "%16s-%-5" PRId64 " (%5s) [%03u] %s %" PRId64 ".%06" PRId64 ": %s:", comm.c_str(), tid,
           tgid.c_str(), static_cast<unsigned>(ev.cpu[row]), flags.c_str(), ts / 1000000000,
           (ts / 1000) % 1000000, std::string(s.GetString(ev.name[row])).c_str());
  std::string out = head;
  if (auto set = ev.arg_set_id.Get(row)) AppendArgs(s, s.GetString(ev.name[row]), *set, &out);
  return out;
}

Status RegisterToFtraceFunction(sqlite3* db, TraceStorage* storage) {
  for (const char* name : {"TO_FTRACE", "to_ftrace"}) {
    int rc = sqlite3_create_function_v2(db, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, storage,
                                        ToFtrace, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) return ErrorStatus(std::string("cannot register ") + name);
  }
  return Status::Ok();
}

}  // namespace fathom
