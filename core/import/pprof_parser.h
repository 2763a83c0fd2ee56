// Imports one pprof profile (perftools.profiles.Profile, github.com/google/pprof
// proto/profile.proto) into the aggregate-profile tables: one
// __intrinsic_aggregate_profile row per sample type, one
// __intrinsic_aggregate_sample row per (sample, sample type) with a non-zero
// value, stacks in stack_profile_mapping/frame/callsite like every other
// profiler. Inlined functions (several Lines in one Location) become one
// frame each, so the flamegraph shows them as pprof does.
//
// The profile is validated completely before anything is written: a bad
// string index, an unknown location or function id, or a sample with the
// wrong number of values leaves the storage untouched and returns an error
// that names the byte offset of the offending message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"

namespace fathom {

struct TraceContext;

// True when `data` (the first bytes of a stream, gzip already removed) is a
// pprof Profile rather than a Perfetto Trace (which also starts with a
// length-delimited field 1): every top-level field must be a Profile field
// with its wire type, every sample_type (field 1) must decode as a ValueType
// (varint fields 1 and 2 only), and there must be a field other than 1 (a
// Trace has only field 1) or a non-empty ValueType (TracePacket fields 1 and
// 2 are messages, never varints).
bool LooksLikePprof(const uint8_t* data, size_t size);

struct PprofImportResult {
  uint32_t sample_types = 0;
  uint64_t samples = 0;      // Sample messages
  uint64_t sample_rows = 0;  // rows written to __intrinsic_aggregate_sample
  uint64_t labels = 0;       // Sample.label entries (not imported)
  uint64_t locations = 0;
};

// `scope` fills __intrinsic_aggregate_profile.scope (upstream: "pprof_file",
// or the archive member's name).
Result<PprofImportResult> ImportPprof(TraceContext* ctx, const uint8_t* data, size_t size,
                                      const std::string& scope);

}  // namespace fathom
