// libFuzzer target: ftrace/atrace text and systrace HTML through the systrace
// text tokenizer (line splitting across chunks, the HTML page's script
// blocks, each event line turned into FtraceEvent bytes) and the ftrace
// parser behind it. Inputs the detector would not read as systrace get a
// "# tracer: nop" header line.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/import/systrace_text_tokenizer.h"
#include "fuzz_load.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using fathom::TraceFormat;
  TraceFormat f = fathom::DetectTraceFormat(data, size);
  if (f == TraceFormat::kSystraceText || f == TraceFormat::kSystraceHtml) {
    fathom::fuzz::LoadAndQuery(data, size);
  } else {
    auto bytes =
        fathom::fuzz::ForceFormat(data, size, TraceFormat::kSystraceText, "# tracer: nop\n");
    if (!bytes.empty()) fathom::fuzz::LoadAndQuery(bytes.data(), bytes.size());
  }
  // The line translator on its own, on the first line (no sorter or parser
  // in the way).
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string_view line = text.substr(0, text.find('\n'));
  std::string event;
  uint32_t cpu = 0;
  int64_t ts = 0;
  bool generic = false;
  (void)fathom::SystraceLineToFtraceEvent(line, &event, &cpu, &ts, &generic);
  return 0;
}
