// fathom's differential tester: a deterministic generator of varied, valid
// Perfetto traces. The same seed always gives the same bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tests/conformance/difftester/gen/gen_context.h"

namespace fathom::difftester {

// The feature switches and sizes the seed picks.
Features FeaturesForSeed(uint64_t seed);

// The trace for `seed` with the given features (FeaturesForSeed(seed)
// unless the caller overrides some), as a serialized perfetto.protos.Trace.
std::string GenerateTrace(uint64_t seed, const Features& features);

}  // namespace fathom::difftester
