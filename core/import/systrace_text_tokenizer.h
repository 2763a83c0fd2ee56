// Reads ftrace/atrace text ("# tracer: nop" dumps, trace_pipe captures, the
// text inside catapult's escaped JavaScript strings) line by line and turns
// each event line into the same FtraceEvent bytes a Perfetto trace carries,
// so sched, thread_state, atrace slices, counters and the raw table come out
// of the one ftrace parser with no special cases.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/import/chunked_tokenizer.h"
#include "core/import/sorter.h"
#include "core/import/trace_context.h"

namespace fathom {

class SystraceTextTokenizer : public ChunkedTokenizer {
 public:
  // With `ctx`, lines that are neither comments nor events are counted in
  // systrace_parse_failure (as upstream counts them) and the first few are
  // reported with their byte offset; without it they are only counted here.
  explicit SystraceTextTokenizer(Sorter* sorter, TraceContext* ctx = nullptr);
  Result<size_t> Feed(std::unique_ptr<TraceBlob> blob, uint64_t stream_offset) override;
  uint64_t units() const override { return events_; }
  size_t retained_bytes() const override { return retained_bytes_; }
  // Call once the stream ended, with its unterminated last line (if any).
  void FinishLastLine(std::string_view line);
  // Lines dropped because they could not be parsed.
  uint64_t malformed_lines() const { return malformed_lines_; }

 private:
  void TokenizeLine(std::string_view line, uint64_t offset);
  void CountMalformed(std::string_view line, uint64_t offset);

  Sorter* sorter_;
  TraceContext* ctx_;
  uint64_t next_offset_ = 0;  // of the line after the last one fed
  uint64_t malformed_lines_ = 0;
  // The text is a web page (catapult keeps the trace in a JavaScript string):
  // only the lines of that string are trace data, the markup is not.
  bool in_page_ = false;
  bool at_text_start_ = true;  // no line read yet
  // Serialized FtraceEvents the sorter points into.
  static constexpr size_t kArenaBlock = 4 << 20;
  std::vector<std::unique_ptr<uint8_t[]>> arena_;
  size_t arena_used_ = 0;
  std::string event_;    // the line's FtraceEvent bytes
  std::string scratch_;  // its envelope (EncodeTextEvent), copied to the arena
  // Events are copies, so only the newest chunk is kept: the loader reads the
  // unfinished last line from it after Feed returns.
  std::unique_ptr<TraceBlob> last_blob_;
  uint64_t events_ = 0;
  size_t retained_bytes_ = 0;
  // Every line goes to one sorter queue (upstream's order for ties across
  // CPUs is the file's order, as for any non-ftrace source).
  uint32_t queue_ = UINT32_MAX;
};

// Parses one text event line into serialized FtraceEvent bytes and its CPU.
// Returns false for headers, comments, and events this importer does not
// translate. Exposed for tests.
// The task columns of a line: "<comm>-<tid> (<tgid>)"; no tgid for "(-----)"
// or a line without the column. `comm` points into the line.
struct TextLineTask {
  int64_t tid = 0;
  std::string_view comm;
  std::optional<int64_t> tgid;
};
bool SystraceLineToFtraceEvent(std::string_view line, std::string* out, uint32_t* cpu, int64_t* ts,
                               bool* generic = nullptr, TextLineTask* task = nullptr);

// A text line travels through the sorter as a small envelope (field 1 tid,
// 2 comm, 3 tgid, 4 the FtraceEvent bytes), marked with one of these
// SortEntry::aux values: no proto sequence generation reaches it. Events with
// no FtraceEvent translation (kGenericTextEventAux) carry no event bytes: as
// upstream, such a line only names its thread.
inline constexpr uint32_t kGenericTextEventAux = 0xFFFFFFFEu;
inline constexpr uint32_t kTextEventAux = 0xFFFFFFFDu;
void EncodeTextEvent(const TextLineTask& task, std::string_view event, std::string* out);
// Parses one envelope: the line's task first, then its event (as upstream,
// whose text lines name their thread before the event is applied).
void ParseTextEvent(TraceContext* ctx, int64_t ts, uint32_t cpu, const uint8_t* data, size_t size);

// Decimal or 0x-hex integer spanning all of `s`.
bool ParseWholeInt(std::string_view s, int64_t* out);

}  // namespace fathom
