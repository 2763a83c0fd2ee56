// The heap explorer's contents pass: reads an HPROF file a second time for
// what the heap_graph_* tables do not hold (core/heap/heap_contents.h): a
// hash of every primitive array's bytes and the Activities whose mDestroyed
// or mFinished is true. The table load does not keep them (it has no place
// in TraceStorage for them, and most loads never need them); the explorer
// asks on its worker when a dump came from an HPROF file.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/heap/heap_contents.h"

namespace fathom::hprof {

// `rows`: the heap_graph_object rows the load wrote for this file, in row
// order (one HPROF file is one dump). Errors when the file cannot be read,
// is not a plain HPROF file (an archive member, gzip), or no longer has as
// many objects as rows.
Result<heap::HeapContents> ReadHprofContents(const std::string& path,
                                             const std::vector<uint32_t>& rows,
                                             const std::atomic<bool>* cancel);

}  // namespace fathom::hprof
