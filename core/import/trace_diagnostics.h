// Diagnoses a trace's recording setup: settings of its TraceConfig that are
// known to lose or distort data (an ftrace buffer too small to drain, a
// DISCARD buffer behind a streaming source, ...), weighed by what the
// recording itself reported (data loss, errors). Each finding is a row of
// `__intrinsic_trace_diagnostics`, with the keys, texts and confidences
// upstream gives for the same config.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfetto::protos {
class TraceConfig;
}

namespace fathom {

struct TraceContext;

struct TraceDiagnostic {
  std::string key;  // stable identifier, e.g. tiny_ftrace_buffer
  std::string title;
  std::string description;
  std::string remediation;
  double confidence;  // in [0, 1]: how likely this is a real problem
};

// What the trace says happened during the recording, beyond its config.
struct RecordingEvidence {
  bool ftrace_data_loss = false;      // the kernel reported lost ftrace events
  bool heapprofd_errors = false;      // an error-severity heapprofd stat is non-zero
  bool android_user_build = false;    // the build fingerprint's type is "user"
  bool display_video_frames = false;  // android.display.video produced frames
  bool display_video_errors = false;  // its producer reported a failure
  // When tracing started, in ns since boot (tracing_started_ns metadata).
  std::optional<int64_t> tracing_started_since_boot_ns;
};

// The findings for `config`, in a fixed rule order (one rule's findings for
// every data source before the next rule's).
std::vector<TraceDiagnostic> DiagnoseTraceConfig(const perfetto::protos::TraceConfig& config,
                                                 const RecordingEvidence& evidence);

// Gathers the evidence from the finished import and writes the findings for
// the serialized TraceConfig `config` into the diagnostics table.
void RecordTraceDiagnostics(TraceContext* ctx, std::string_view config);

}  // namespace fathom
