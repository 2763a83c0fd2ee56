// Turns sorted Chrome JSON trace events into the same tables the Perfetto
// importers fill: B/E and X slices on thread tracks, I/i instants, C counters,
// M process/thread names, b/e/n nestable async slices on process tracks,
// s/t/f flows, P samples, with "args" as slice args. Each event is read
// straight from its bytes (json_scanner), without building a json::Value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/import/args_tracker.h"
#include "core/import/json_value.h"
#include "core/import/legacy_async_tracks.h"
#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

// The keys an event uses, as raw JSON text (a string keeps its quotes);
// empty when absent. Read in one pass over the event's bytes, first
// occurrence wins (as json::Value::Find).
struct JsonEventFields {
  std::string_view ph, pid, tid, name, cat, args, dur, s, id, id2, sf, cpu;
  std::string_view tts, tdur, bp, bind_id, flow_in, flow_out;
};

class JsonTraceParser {
 public:
  explicit JsonTraceParser(TraceContext* ctx);
  // `aux` is the tokenizer's SortEntry::aux: kJsonSampleAux marks an entry
  // of the top-level "samples" array instead of a trace event.
  // Events with one timestamp are held until the next timestamp (or Flush)
  // so that complete ("X") events among them go longest first: a parent
  // and its child starting together then nest, as upstream orders them.
  void ParseEvent(int64_t ts, proto::Bytes event, uint32_t aux = 0);
  // Parses the events still held; call once the sorted stream has ended.
  void Flush();
  // The trace's "stackFrames" object (may be null); must outlive parsing.
  // P events' and samples' "sf" ids resolve through it into
  // stack_profile_* callsites.
  // Indexes "stackFrames" by id once: samples look frames up by id, and a
  // linear search per lookup made a large map quadratic.
  void SetStackFrames(const json::Value* frames);

 private:
  // pid/tid may be numbers or strings; strings that are not numbers get
  // stable synthetic ids (and name the process/thread).
  int64_t ResolveId(std::string_view raw, bool is_pid, std::string* label);
  // One event, once its turn within its timestamp has come.
  void HandleEvent(int64_t ts, const JsonEventFields& e, std::optional<int64_t> x_dur);
  void FlushSameTs();
  // A "C" member's value: a number, or a string that is wholly one.
  std::optional<double> CounterValue(std::string_view raw);
  // An event's "args" as a builder (empty for none): a slice's set is
  // written when it leaves its track's stack, as the reference numbers it.
  ArgsTracker::Builder SliceArgs(std::string_view args);
  // "M" events: names and sort-order hints of processes and threads.
  void ParseMetadataEvent(const JsonEventFields& e, uint32_t upid, uint32_t utid);
  // "C" events: one process counter per args member (a number, or a string
  // that is one). The values wait for FlushCounters.
  void ParseCounterEvent(int64_t ts, const JsonEventFields& e, uint32_t utid);
  // Writes the held counter values: as the reference resolves a thread's
  // process only once the trace has ended, the counter tracks come after
  // every other track, in the order of their first value.
  void FlushCounters();
  // Writes the held sort-index hints (see ParseMetadataEvent).
  void FlushSortHints();
  // An event the reference rejects (json_parser_failure), logged with its
  // name and phase.
  void LogFailure(int64_t ts, const JsonEventFields& e);
  // "b"/"e"/"n" events: legacy async slices (see LegacyAsyncTracks).
  void ParseAsyncEvent(int64_t ts, const JsonEventFields& e, uint32_t upid, StringId cat,
                       StringId name);
  // "I"/"i"/"R" events: instants on the thread, process ("s": "p") or
  // global ("s": "g") instant track.
  void ParseInstantEvent(int64_t ts, const JsonEventFields& e, uint32_t upid, uint32_t utid,
                         StringId cat, StringId name);
  // An X event that partially overlaps a slice of its thread: placed on one
  // of the thread's overflow tracks.
  // `conflict` is the slice of the thread track it partially overlaps.
  std::optional<uint32_t> SpillComplete(int64_t ts, uint32_t utid, StringId cat, StringId name,
                                        int64_t dur, std::string_view args, uint32_t conflict);
  // Counts slice_spill_overlapping_complete_event with a _trace_import_logs
  // row naming the event and the slice it overlaps.
  void LogSpill(int64_t ts, StringId name, uint32_t conflict);
  // "T" events: thread states (and sched slices while Running).
  void ParseThreadStateEvent(int64_t ts, const JsonEventFields& e, uint32_t utid);
  // Flow v2: a slice's "bind_id" with "flow_in"/"flow_out".
  void BindFlowsV2(const JsonEventFields& e, uint32_t slice);
  // A slice began on `track`: flow v1 ends waiting for the next slice there
  // bind to it.
  void OnSliceBegin(uint32_t track, std::optional<uint32_t> slice) {
    if (!pending_flow_ends_.empty() && slice) BindPendingFlowEnds(track, *slice);
  }
  void BindPendingFlowEnds(uint32_t track, uint32_t slice);
  // "tts"/"tdur" (thread time, microseconds) on a slice that just began.
  void SetThreadTimes(const JsonEventFields& e, std::optional<uint32_t> slice);
  // Adds `raw` under `key_` (extended and restored for nested values).
  void AddArgsRecursive(ArgsTracker::Builder* b, std::string_view raw, int depth);
  void BindFlowsV1(char phase, const JsonEventFields& e, uint32_t track);
  // "id" or "id2" as text ("" when neither).
  std::string IdString(const JsonEventFields& e);
  // An async event's trace id: "id" (a string or an integer), else id2's
  // "global", else its "local" (*local set); false when there is none.
  bool AsyncIdKey(const JsonEventFields& e, std::string* key, bool* local);
  // A string value's text, or `fallback` for any other value or none; valid
  // until `scratch` changes.
  static std::string_view Str(std::string_view raw, std::string* scratch,
                              std::string_view fallback);

  // ProcessTracker::UpdateThread, remembered while the tracker's generation
  // says a repeated call would find the same thread and change nothing.
  uint32_t UpdateThreadCached(int64_t tid, int64_t pid);
  // The id of a raw string value's text (quotes included, as read; "" for
  // none), through a small cache: event names and categories repeat, and
  // the pool's own table is large and cold.
  StringId InternRaw(std::string_view raw, std::string* scratch);

  std::optional<uint32_t> CallsiteOfFrame(const std::string& id);
  // A P event or a "samples" entry: one perf_sample row.
  void ParseSample(const JsonEventFields& e, int64_t ts, uint32_t utid);
  void ParseTopLevelSample(int64_t ts, std::string_view text);

  TraceContext* ctx_;
  const json::Value* stack_frames_ = nullptr;
  std::unordered_map<std::string_view, const json::Value*> frame_by_id_;  // first of an id wins
  std::unordered_map<std::string, std::optional<uint32_t>> frame_callsites_;
  std::unordered_map<std::string, int64_t> synthetic_ids_;
  int64_t next_synthetic_id_ = 0x7fff0000;
  // Flow v1: "cat/name/id" -> last slice that sent it.
  std::unordered_map<std::string, uint32_t> open_flows_;
  // Flow v1 "f" events binding to the next slice on their thread track:
  // track -> source slices.
  std::unordered_map<uint32_t, std::vector<uint32_t>> pending_flow_ends_;
  // Flow v2: bind_id -> the last slice with flow_out.
  std::unordered_map<std::string, uint32_t> v2_flow_sources_;
  // Events of the current timestamp, in sorted order (see ParseEvent).
  struct HeldEvent {
    int64_t ts;
    int64_t order_dur;             // an X event's duration, else 0
    std::optional<int64_t> x_dur;  // an X event's valid duration
    JsonEventFields fields;
  };
  std::vector<HeldEvent> held_;
  // utid -> its overflow tracks for overlapping complete events, in order
  // (one track group).
  struct SpillTracks {
    std::vector<uint32_t> tracks;
    uint32_t track_group_id = 0;
  };
  std::unordered_map<uint32_t, SpillTracks> spill_tracks_;
  LegacyAsyncTracks async_tracks_;
  struct PendingCounter {
    int64_t ts;
    double value;
    StringId name;
    uint32_t utid;
  };
  std::vector<PendingCounter> pending_counters_;
  // "M" sort-index hints by upid / utid (first wins), in first-seen order.
  struct SortHints {
    std::unordered_map<uint32_t, int64_t> value;
    std::vector<uint32_t> order;
  };
  SortHints process_hints_, thread_hints_;
  // Reused buffers: no allocation per event once they have grown.
  std::string key_;  // the args key being built ("args.a.b[2]")
  std::string name_buf_, cat_buf_, ph_buf_, tmp_buf_, key_buf_, num_buf_;
  StringId user_mode_ = kNullStringId;
  struct ThreadCacheEntry {
    uint64_t generation = ~uint64_t{0};
    int64_t tid = -1, pid = -1;
    uint32_t utid = 0;
  };
  static constexpr size_t kThreadCacheSize = 256;
  ThreadCacheEntry thread_cache_[kThreadCacheSize];
  struct StringCacheEntry {
    std::string raw;
    StringId id = kNullStringId;
  };
  static constexpr size_t kStringCacheSize = 512;
  std::vector<StringCacheEntry> string_cache_;  // by hash of the raw text
};

}  // namespace fathom
