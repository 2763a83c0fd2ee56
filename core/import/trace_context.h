// The import pipeline's shared state: storage plus the trackers that turn
// events into rows. One TraceContext per loaded trace; parsers receive it.
#pragma once

#include <array>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/import/byte_origins.h"
#include "core/import/import_options.h"
#include "core/import/load_limits.h"
#include "core/import/load_problems.h"
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
class TranslationTable;
class SystemParser;
class ProfileParser;
class HeapGraphParser;
class FrameTimelineParser;

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
  std::unique_ptr<ProfileParser> profile_parser;               // heapprofd, perf, StackSample
  std::unique_ptr<HeapGraphParser> heap_graph_parser;          // ART heap graphs
  std::unique_ptr<FrameTimelineParser> frame_timeline_parser;  // SurfaceFlinger frames
  std::unique_ptr<TranslationTable> translation_table;         // TracePacket.translation_table

  uint64_t trace_size_bytes = 0;
  // The files parsed, in the order the loader met them (a zip's members; the
  // page inside an HTML systrace): the metadata's trace_type and
  // trace_time_clock_id come from them once the import ends. Written by the
  // loader before a file is tokenized, read after every parse has finished.
  struct ParsedFile {
    std::string type;                   // trace_file.trace_type ("proto", "json", ...)
    bool proto = false;                 // its clock is the clock snapshots' (if any)
    std::optional<int64_t> time_clock;  // else: the clock its timestamps are in
  };
  std::vector<ParsedFile> parsed_files;
  // The `machine` row of the packet being parsed (TracePacket.machine_id),
  // set by PacketParser for every packet it parses.
  uint32_t packet_machine_id = kHostMachineId;
  // A context is made for one load, just before it starts: the
  // parse_trace_duration_ns stat is measured from here.
  std::chrono::steady_clock::time_point load_started = std::chrono::steady_clock::now();
  // What each trusted sequence lost (every sequence seen has an entry).
  // Filled by the tokenizer, read by the TraceStats parser, which attributes
  // it to the sequence's buffer (TraceStats.writer_stats).
  struct SequenceLoss {
    // Packets flagged previous_packet_dropped (the first packet's flag is not
    // a loss within the trace).
    int64_t packets_lost = 0;
    // Those flags read as a bitmask of TracePacket.DataLossReason: one count
    // per cause bit, bit 1 (READ_GAP) first.
    std::array<int64_t, 8> causes{};
    // Packets needing incremental state that were skipped / parsed.
    bool incremental_skipped = false;
    bool incremental_parsed = false;
  };
  std::unordered_map<uint32_t, SequenceLoss> packet_loss_by_sequence;
  // What tokenizers and parsers dropped, with offsets, for the load report.
  LoadProblems problems;
  // Where the event being imported sits, so that a problem counted only as a
  // stat can still be reported with its offset (core/load/stat_problems.h).
  ByteOrigins origins;  // the retained chunks: event bytes -> file offsets
  struct Cursor {
    const uint8_t* event = nullptr;         // the sorted event being parsed
    std::optional<int64_t> event_ts;        // its timestamp
    std::optional<uint64_t> packet_offset;  // the packet being tokenized
  } cursor;
  // The load's limits, for parsers that enforce one (set by the loader).
  LoadLimits limits;
  // What the load imports beyond the defaults (set by TraceProcessor).
  ImportOptions options;
  // Start of the range of interest (the last TrackEventRangeOfInterest in
  // file order), set by the tokenizer; with options.crop_track_events the
  // TrackEvent parser drops events before it.
  std::optional<int64_t> track_event_range_start_ns;
};

}  // namespace fathom
