// A java.lang.String's text, read back from the dump's file through
// HeapContents::read_bytes (heap_contents.h): the tables hold only the
// String and its `value` array's size.
#pragma once

#include <string>

#include "base/status.h"
#include "core/heap/heap_analysis.h"
#include "core/heap/heap_contents.h"

namespace fathom {
class TraceStorage;
namespace heap {

// UTF-8 text of String v, at most `max_chars` characters ("…" appended when
// cut). The value array decides the encoding: char[] is UTF-16 in HPROF's
// big-endian order (older JDKs, ART's uncompressed strings); byte[] is
// Latin-1 (HotSpot's compact strings, ART's compressed ones) unless the
// String's `coder` is 1, then UTF-16 in the JVM's byte order (little-endian
// on every JVM that writes these dumps: x86, ARM). Errors without contents.
Result<std::string> StringText(const TraceStorage& s, const HeapAnalysis& a,
                               const HeapContents& contents, uint32_t v, size_t max_chars);

}  // namespace heap
}  // namespace fathom
