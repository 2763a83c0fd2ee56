// Imports simpleperf's `report-sample --protobuf` output (cmd_report_sample
// proto): the magic "SIMPLEPERF", a little-endian uint16 version, then Record
// messages each prefixed by a little-endian uint32 size, ended by size 0.
//
// What upstream Perfetto makes of it (learnt from its trace processor):
//  - File records become stack_profile_mapping rows as they are read; a later
//    File with the same id replaces the earlier one for every sample.
//  - Each Sample with a callchain becomes a cpu_profile_stack_sample row; its
//    entries are leaf first, each a frame (mapping of its file, rel_pc =
//    vaddr_in_file, name = the file's symbol[symbol_id], NULL when out of
//    range). A sample naming an unknown file is dropped.
//  - Samples are applied in timestamp order; a Thread record takes the
//    timestamp of the sample before it in the file, so thread and process
//    rows are created in the order upstream creates them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/status.h"

namespace fathom {

struct TraceContext;

// True when `data` starts with simpleperf's report-sample magic.
bool LooksLikeSimpleperfProto(const uint8_t* data, size_t size);

struct SimpleperfImportResult {
  uint64_t records = 0;           // every record read
  uint64_t samples = 0;           // Sample records
  uint64_t imported_samples = 0;  // cpu_profile_stack_sample rows written
  uint64_t dropped_samples = 0;   // samples naming a file with no File record
};

// Decodes the whole file, then writes its rows. A malformed record stops the
// import with an error naming its byte offset; records before it are kept.
Result<SimpleperfImportResult> ImportSimpleperfProto(TraceContext* ctx, const uint8_t* data,
                                                     size_t size);

}  // namespace fathom
