// Fills __intrinsic_trace_file as the loader meets files: the loaded file,
// each archive member, and the content of a gzip/zstd wrapper (a container
// row of the wrapper's type with one unnamed child), as upstream lists them.
//
// processing_order is upstream's order, not the order Fathom reads archive
// members in: the loaded file is 0; then, depth first, each container's
// children sorted with protobuf traces (and gzip/zstd files) before other
// types and by name within a class (upstream reads an archive's protobuf
// members first). Upstream numbers ids as it lists an archive's members
// before reading any; Fathom streams them, so the rows of a wrapped member's
// content come right after that member.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/import/trace_format.h"
#include "core/storage/trace_storage.h"

namespace fathom {

// upstream's trace_type name of a detected format.
std::string_view TraceFileTypeName(TraceFormat format);

// The clock a file's own timestamps are in, as upstream reports it in the
// metadata's trace_time_clock_id (builtin clock ids, checked with the oracle:
// JSON 11, systrace 3, simpleperf 3, strace 1); none for formats without a
// time base (folded stacks, pprof, heap dumps) and for protobuf traces, whose
// clock is their clock snapshots' primary clock.
std::optional<int64_t> FormatTraceTimeClock(TraceFormat format);

// A row of `storage->trace_files`; `name` nullopt stores NULL (the loaded
// file has no name of its own).
uint32_t AddTraceFile(TraceStorage* storage, std::optional<uint32_t> parent,
                      std::optional<std::string_view> name, std::string_view type, bool container);
void SetTraceFileSize(TraceStorage* storage, uint32_t row, uint64_t size);
// Numbers processing_order over every row (call once the load is read).
void FinishTraceFiles(TraceStorage* storage);

}  // namespace fathom
