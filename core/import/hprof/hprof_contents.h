// The heap explorer's contents pass: reads an HPROF file a second time for
// what the heap_graph_* tables do not hold (core/heap/heap_contents.h): a
// hash of every primitive array's bytes and where they are, the Activities
// whose mDestroyed or mFinished is true, UTF-16 Strings, and each Bitmap's
// width, height and native pointer. The table load does not keep them: that
// would cost 16+ bytes per array and a hash over every array byte on every
// load, for the few loads that open the explorer's duplicates. The explorer
// asks on its worker when a dump came from an HPROF file; the array bytes
// themselves (a string's text, a bitmap's pixels) are read again only when
// shown, through HeapContents::read_bytes.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/heap/heap_contents.h"

namespace fathom::hprof {

// `rows`: the heap_graph_object rows the load wrote for this file, in row
// order (one HPROF file is one dump). Errors when the file cannot be read
// (saying plainly when it was moved or deleted), is not a plain HPROF file
// (an archive member, gzip), or no longer has as many objects as rows.
// `percent`, when given, follows the bytes read (0..100).
Result<heap::HeapContents> ReadHprofContents(const std::string& path,
                                             const std::vector<uint32_t>& rows,
                                             const std::atomic<bool>* cancel,
                                             std::atomic<int>* percent = nullptr);

// What to say when the dump's file cannot be opened again.
std::string MissingFileMessage(const std::string& path);

}  // namespace fathom::hprof
