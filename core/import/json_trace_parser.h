// Turns sorted Chrome JSON trace events into the same tables the Perfetto
// importers fill: B/E and X slices on thread tracks, I/i instants, C counters,
// M process/thread names, b/e/n nestable async slices on process tracks,
// s/t/f flows, with "args" as slice args.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/import/args_tracker.h"
#include "core/import/json_value.h"
#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

class JsonTraceParser {
 public:
  explicit JsonTraceParser(TraceContext* ctx);
  void ParseEvent(int64_t ts, proto::Bytes event);
  // The trace's "stackFrames" object (may be null); must outlive parsing.
  // P events' "sf" ids resolve through it into stack_profile_* callsites.
  void SetStackFrames(const json::Value* frames) { stack_frames_ = frames; }

 private:
  // pid/tid may be numbers or strings; strings that are not numbers get
  // stable synthetic ids (and name the process/thread).
  int64_t ResolveId(const json::Value* v, bool is_pid, std::string* label);
  std::optional<uint32_t> AddArgs(const json::Value* args);
  void AddArgsRecursive(ArgsTracker::Builder* b, const std::string& key, const json::Value& v);
  void BindFlowsV1(char phase, const json::Value& e, uint32_t track, int64_t ts);

  std::optional<uint32_t> CallsiteOfFrame(const std::string& id, int depth = 0);
  void ParseSample(const json::Value& e, int64_t ts, uint32_t utid);

  TraceContext* ctx_;
  const json::Value* stack_frames_ = nullptr;
  std::unordered_map<std::string, std::optional<uint32_t>> frame_callsites_;
  std::unordered_map<std::string, int64_t> synthetic_ids_;
  int64_t next_synthetic_id_ = 0x7fff0000;
  // Flow v1: id -> last slice that sent it.
  std::unordered_map<std::string, uint32_t> open_flows_;
  // Nestable async: "cat:id" -> its process track (named by the first event).
  std::unordered_map<std::string, uint32_t> async_tracks_;
};

}  // namespace fathom
