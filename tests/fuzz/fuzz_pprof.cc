// libFuzzer target: pprof profiles (perftools.profiles.Profile). Every input
// goes straight to ImportPprof (the decoder, string table, locations,
// samples); inputs the detector takes for pprof also load through the whole
// pipeline (pprof tokenizer, tables, SQL).
#include <cstddef>
#include <cstdint>

#include "core/import/pprof_parser.h"
#include "core/import/trace_context.h"
#include "fuzz_load.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  {
    fathom::TraceContext ctx;
    (void)fathom::ImportPprof(&ctx, data, size, "fuzz");
  }
  if (fathom::LooksLikePprof(data, size)) fathom::fuzz::LoadAndQuery(data, size);
  return 0;
}
