// libFuzzer target: Chrome JSON traces through the JSON tokenizer (the byte
// scanner that finds each event's extent and timestamp across chunks), the
// JSON event parser and, for "systemTraceEvents", the systrace tokenizer
// inside it. Inputs the detector would not read as JSON get a leading '['.
#include <cstddef>
#include <cstdint>

#include "fuzz_load.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto bytes = fathom::fuzz::ForceFormat(data, size, fathom::TraceFormat::kJson, "[");
  if (!bytes.empty()) fathom::fuzz::LoadAndQuery(bytes.data(), bytes.size());
  return 0;
}
