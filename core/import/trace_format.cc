#include "core/import/trace_format.h"

#include <cctype>
#include <cstring>
#include <string_view>

#include "core/import/collapsed_stacks.h"
#include "core/import/pprof_parser.h"

namespace fathom {

TraceFormat DetectTraceFormat(const uint8_t* data, size_t size) {
  if (size == 0) return TraceFormat::kEmpty;
  std::string_view s(reinterpret_cast<const char*>(data), size);
  if (size >= 4 && memcmp(data, "PK\x03\x04", 4) == 0) return TraceFormat::kZip;
  if (size >= 262 && memcmp(data + 257, "ustar", 5) == 0) return TraceFormat::kTar;
  // Before the text checks: a Profile's first byte (0x0A) reads as whitespace.
  // LooksLikePprof tells it from a Perfetto Trace, which also starts with 0x0A.
  if (LooksLikePprof(data, size)) return TraceFormat::kPprof;
  // Skip a UTF-8 BOM and leading whitespace for the text formats.
  size_t i = 0;
  if (s.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  while (i < s.size() && isspace(static_cast<unsigned char>(s[i]))) ++i;
  std::string_view t = s.substr(i);
  if (!t.empty() && (t[0] == '{' || t[0] == '[')) return TraceFormat::kJson;
  // tiallocsample logs: Fathom's agent starts with its header; ART's agent
  // always starts by defining key 0 as an allocation's thread/type/size.
  if (t.substr(0, 14) == "# fathom-jvmti" || t.substr(0, 11) == "+0,jthread[")
    return TraceFormat::kArtAllocLog;
  if (t.substr(0, 8) == "# tracer" || t.substr(0, 6) == "TRACE:") return TraceFormat::kSystraceText;
  if (t.substr(0, 1) == "<") return TraceFormat::kSystraceHtml;
  // atrace output with banner lines before its "TRACE:" marker.
  if (size_t m = t.substr(0, 4096).find("\nTRACE:"); m != std::string_view::npos)
    return TraceFormat::kSystraceText;
  // A Perfetto Trace starts with field 1 (packet), length-delimited: 0x0A. A
  // stream may also start with other valid top-level tags; accept any tag
  // whose field number is 1..536870911 with a known wire type only for 0x0A.
  if (data[0] == 0x0A) return TraceFormat::kProto;
  // ftrace text without the header: "  <idle>-0  [000] ..."
  if (t.find("-0 ") != std::string_view::npos && t.find("[00") != std::string_view::npos)
    return TraceFormat::kSystraceText;
  if (LooksLikeCollapsedStacks(data, size)) return TraceFormat::kCollapsedStacks;
  return TraceFormat::kUnknown;
}

const char* TraceFormatName(TraceFormat f) {
  switch (f) {
    case TraceFormat::kUnknown: return "unknown";
    case TraceFormat::kProto: return "perfetto protobuf";
    case TraceFormat::kJson: return "chrome json";
    case TraceFormat::kSystraceText: return "systrace text";
    case TraceFormat::kSystraceHtml: return "systrace html";
    case TraceFormat::kArtAllocLog: return "tiallocsample log";
    case TraceFormat::kCollapsedStacks: return "collapsed stacks";
    case TraceFormat::kPprof: return "pprof";
    case TraceFormat::kZip: return "zip";
    case TraceFormat::kTar: return "tar";
    case TraceFormat::kEmpty: return "empty";
  }
  return "unknown";
}

}  // namespace fathom
