// The import pipeline's shared state: storage plus the trackers that turn
// events into rows. One TraceContext per loaded trace; parsers receive it.
#pragma once

#include <memory>

#include "core/storage/trace_storage.h"

namespace fathom {

class ArgsTracker;
class ClockTracker;
class ProcessTracker;
class TrackTracker;
class SliceTracker;
class FtraceParser;
class PacketParser;
class TrackEventParser;
class SystemParser;

struct TraceContext {
  TraceContext();
  ~TraceContext();
  TraceContext(const TraceContext&) = delete;
  TraceContext& operator=(const TraceContext&) = delete;

  // Called once after the last event was parsed: closes open slices, flushes
  // pending state, fills derived tables.
  void OnImportFinished();

  std::unique_ptr<TraceStorage> storage;
  std::unique_ptr<ArgsTracker> args_tracker;
  std::unique_ptr<ClockTracker> clock_tracker;
  std::unique_ptr<ProcessTracker> process_tracker;
  std::unique_ptr<TrackTracker> track_tracker;
  std::unique_ptr<SliceTracker> slice_tracker;
  std::unique_ptr<FtraceParser> ftrace_parser;
  std::unique_ptr<SystemParser> system_parser;
  std::unique_ptr<TrackEventParser> track_event_parser;
  std::unique_ptr<PacketParser> packet_parser;

  uint64_t trace_size_bytes = 0;
};

}  // namespace fathom
