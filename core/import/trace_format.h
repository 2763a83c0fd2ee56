// Recognises a trace's format from its first bytes (after any gzip/zstd
// wrapper has been removed), never from the file name.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fathom {

enum class TraceFormat {
  kUnknown,
  kProto,            // Perfetto protobuf Trace
  kJson,             // Chrome JSON trace
  kSystraceText,     // ftrace/atrace text dump
  kSystraceHtml,     // systrace HTML page
  kArtAllocLog,      // tiallocsample text log (JVMTI Java allocation samples)
  kCollapsedStacks,  // folded stacks, "a;b;c 12" per line
  kPprof,            // pprof perftools.profiles.Profile
  kSimpleperfProto,  // simpleperf report-sample --protobuf output
  kStrace,           // strace -f -ttt text output
  kHprof,            // Java heap dump (HPROF 1.0.x, HotSpot or ART)
  kZip,
  kTar,
  kEmpty,
};

TraceFormat DetectTraceFormat(const uint8_t* data, size_t size);
const char* TraceFormatName(TraceFormat f);

}  // namespace fathom
