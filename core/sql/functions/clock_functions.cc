#include "core/sql/functions/clock_functions.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fathom {
namespace {

// (trace time, clock value) of each snapshot holding both clocks, by trace
// time.
using Timeline = std::vector<std::pair<int64_t, int64_t>>;

std::optional<int64_t> ValueIn(const std::vector<std::pair<uint64_t, int64_t>>& snapshot,
                               uint64_t clock) {
  auto it = std::lower_bound(snapshot.begin(), snapshot.end(), clock,
                             [](const auto& entry, uint64_t c) { return entry.first < c; });
  if (it == snapshot.end() || it->first != clock) return std::nullopt;
  return it->second;
}

struct ClockFunction {
  const char* name;
  uint64_t clock;
  ClockTracker* clocks;  // non-const: conversions cache their paths
  // Built on first use and rebuilt if snapshots arrived since.
  Timeline timeline;
  size_t snapshots_seen = 0;

  const Timeline& CurrentTimeline() {
    const auto& snapshots = clocks->snapshots();
    if (snapshots_seen == snapshots.size()) return timeline;
    timeline.clear();
    for (const auto& snap : snapshots) {
      auto value = ValueIn(snap, clock);
      if (!value) continue;
      // A snapshot without the trace clock places the value in trace time
      // through the other snapshots, as upstream's clock_snapshot rows do.
      auto trace_ts = ValueIn(snap, clocks->trace_clock());
      if (!trace_ts) trace_ts = clocks->ToTraceTime(clock, *value);
      if (trace_ts) timeline.emplace_back(*trace_ts, *value);
    }
    std::stable_sort(timeline.begin(), timeline.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    snapshots_seen = snapshots.size();
    return timeline;
  }
};

// The clock's value at trace time ts (nullopt when no snapshot holds it).
std::optional<int64_t> Convert(ClockFunction* fn, int64_t ts) {
  const Timeline& timeline = fn->CurrentTimeline();
  if (timeline.empty()) return std::nullopt;
  auto after = std::upper_bound(timeline.begin(), timeline.end(), ts,
                                [](int64_t t, const auto& entry) { return t < entry.first; });
  if (after == timeline.begin()) return timeline.front().second;
  const auto& [snapshot_ts, value] = *std::prev(after);
  int64_t converted = value + (ts - snapshot_ts);
  // Never past the next snapshot's value: clocks that jump (a wall clock
  // set back) hold at the value they will have next.
  if (ts != snapshot_ts && after != timeline.end()) converted = std::min(converted, after->second);
  return converted;
}

// The timestamp argument, or nullopt after setting the result (NULL or an
// error).
std::optional<int64_t> TimestampArg(sqlite3_context* ctx, sqlite3_value* arg, const char* name) {
  const int type = sqlite3_value_type(arg);
  if (type == SQLITE_INTEGER) return sqlite3_value_int64(arg);
  if (type == SQLITE_NULL) {
    sqlite3_result_null(ctx);
  } else {
    const std::string msg = std::string(name) + ": first argument should be timestamp";
    sqlite3_result_error(ctx, msg.c_str(), -1);
  }
  return std::nullopt;
}

void ConvertFromTraceTime(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto* fn = static_cast<ClockFunction*>(sqlite3_user_data(ctx));
  const auto ts = TimestampArg(ctx, argv[0], fn->name);
  if (!ts) return;
  const auto converted = Convert(fn, *ts);
  if (!converted) return sqlite3_result_null(ctx);
  sqlite3_result_int64(ctx, *converted);
}

// ABS_TIME_STR(ts): the wall-clock time of ts, "YYYY-MM-DDTHH:MM:SS.nnnnnnnnn"
// in UTC.
void AbsTimeStr(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto* fn = static_cast<ClockFunction*>(sqlite3_user_data(ctx));
  const auto ts = TimestampArg(ctx, argv[0], fn->name);
  if (!ts) return;
  const auto realtime = Convert(fn, *ts);
  if (!realtime) return sqlite3_result_null(ctx);
  constexpr int64_t kNsPerSec = 1000000000;
  int64_t secs = *realtime / kNsPerSec;
  int64_t nanos = *realtime % kNsPerSec;
  if (nanos < 0) --secs, nanos += kNsPerSec;  // floor, for times before 1970
  const auto t = static_cast<time_t>(secs);
  tm utc{};
#if defined(_WIN32)
  // The CRT's gmtime_s (no gmtime_r); it refuses times before 1970, which are then NULL.
  if (gmtime_s(&utc, &t) != 0) return sqlite3_result_null(ctx);
#else
  if (!gmtime_r(&t, &utc)) return sqlite3_result_null(ctx);
#endif
  char buf[80];
  snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%09lld", utc.tm_year + 1900,
           utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
           static_cast<long long>(nanos));
  sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

void DeleteClockFunction(void* p) { delete static_cast<ClockFunction*>(p); }

// TO_TIMECODE(ts): "HH:MM:SS mmm uuu nnn", each part truncated toward zero
// (so negative times print negative parts), hours unbounded.
void ToTimecode(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) return sqlite3_result_null(ctx);
  if (type != SQLITE_INTEGER)
    return sqlite3_result_error(ctx, "TO_TIMECODE: first argument should be timestamp", -1);
  const long long ts = sqlite3_value_int64(argv[0]);
  char buf[64];
  snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld %03lld %03lld %03lld", ts / 3600000000000LL,
           ts / 60000000000LL % 60, ts / 1000000000LL % 60, ts / 1000000LL % 1000,
           ts / 1000LL % 1000, ts % 1000);
  sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

}  // namespace

Status RegisterClockFunctions(sqlite3* db, ClockTracker* clocks) {
  struct Fn {
    const char* name;
    uint64_t clock;
    void (*impl)(sqlite3_context*, int, sqlite3_value**);
  };
  const Fn functions[] = {{"TO_REALTIME", kClockRealtime, ConvertFromTraceTime},
                          {"TO_MONOTONIC", kClockMonotonic, ConvertFromTraceTime},
                          {"ABS_TIME_STR", kClockRealtime, AbsTimeStr}};
  for (const auto& [name, clock, impl] : functions) {
    auto fn = std::make_unique<ClockFunction>();
    fn->name = name;
    fn->clock = clock;
    fn->clocks = clocks;
    // Not deterministic: the answer changes as a trace loads.
    int rc = sqlite3_create_function_v2(db, name, 1, SQLITE_UTF8, fn.release(), impl, nullptr,
                                        nullptr, DeleteClockFunction);
    if (rc != SQLITE_OK) return ErrorStatus(std::string("cannot register ") + name);
  }
  if (sqlite3_create_function_v2(db, "TO_TIMECODE", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr,
                                 ToTimecode, nullptr, nullptr, nullptr) != SQLITE_OK)
    return ErrorStatus("cannot register TO_TIMECODE");
  return Status::Ok();
}

}  // namespace fathom
