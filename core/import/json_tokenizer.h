// Streams a Chrome JSON trace (array form `[...]` or object form with
// "traceEvents") without building a DOM of the file: a byte scanner finds each
// event object's extent, reads its timestamp, and pushes a reference to its
// bytes into the Sorter. The JsonTraceParser reads each object after sorting.
// Entries of a top-level "samples" array are pushed the same way, marked
// with kJsonSampleAux.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/import/chunked_tokenizer.h"
#include "core/import/json_value.h"
#include "core/import/sorter.h"
#include "core/import/systrace_text_tokenizer.h"
#include "core/import/trace_context.h"

namespace fathom {

// SortEntry::aux of an entry of the top-level "samples" array (CPU samples
// {"cpu", "tid", "ts", "name", "sf", "weight"}); trace events have 0.
inline constexpr uint32_t kJsonSampleAux = 1;

class JsonTokenizer : public ChunkedTokenizer {
 public:
  JsonTokenizer(TraceContext* ctx, Sorter* sorter);
  Result<size_t> Feed(std::unique_ptr<TraceBlob> blob, uint64_t stream_offset) override;
  uint64_t units() const override { return events_ + system_trace_events(); }
  size_t retained_bytes() const override { return retained_bytes_; }
  // Keys found at the top level that this build does not import yet
  // (e.g. "systemTraceEvents"): reported as warnings.
  const std::vector<std::string>& unsupported_keys() const { return unsupported_keys_; }

  // After the stream ended: loads the ftrace text of "systemTraceEvents"
  // (through a SystraceTextTokenizer into the same sorter) and parses
  // "stackFrames" for the P sample events. Errors (a damaged value) name it.
  Status Finish();
  // "stackFrames" ({"id": {"name", "parent", "category"}}), or null.
  const json::Value* stack_frames() const { return stack_frames_ ? &*stack_frames_ : nullptr; }
  uint64_t system_trace_events() const;

 private:
  // `ts_raw`: the "ts" value's text when the scan found it, else empty.
  void EmitEvent(const uint8_t* begin, size_t size, std::string_view ts_raw);
  void EndCapture(const uint8_t* data, size_t end);
  std::string& CaptureBuffer();
  // The top-level "metadata" object's members become "json_metadata.<key>"
  // rows of the metadata table.
  void WriteTraceMetadata();

  TraceContext* ctx_;
  Sorter* sorter_;
  std::vector<std::unique_ptr<TraceBlob>> blobs_;
  uint64_t events_ = 0;
  size_t retained_bytes_ = 0;
  std::vector<std::string> unsupported_keys_;

  // Scanner state (persists across chunks).
  int depth_ = 0;
  bool in_string_ = false;
  bool escape_ = false;
  bool top_is_object_ = false;
  int events_depth_ = -1;    // depth of the elements of the events array
  uint32_t events_aux_ = 0;  // kJsonSampleAux inside "samples"
  bool expect_key_ = false;
  bool capturing_key_ = false;
  std::string key_;
  std::string last_key_;
  uint32_t queue_ = 0;

  // Top-level values read whole after the stream: systemTraceEvents (a JSON
  // string of ftrace text) and stackFrames (an object).
  enum Capture : uint8_t { kNone, kSystemText, kStackFrames, kMetadata };
  Capture pending_capture_ = kNone;  // key seen, value not started
  Capture capture_ = kNone;          // inside the value
  size_t capture_start_ = SIZE_MAX;  // in the current blob
  std::string system_text_json_;
  std::string stack_frames_json_;
  std::string metadata_json_;  // the top-level "metadata" object
  std::optional<json::Value> stack_frames_;
  std::unique_ptr<SystraceTextTokenizer> system_text_;
};

}  // namespace fathom
