#include "core/import/trace_format.h"

#include <cctype>
#include <cstring>
#include <string_view>

#include "core/import/collapsed_stacks.h"
#include "core/import/hprof/hprof_format.h"
#include "core/import/pprof_parser.h"
#include "core/import/simpleperf_proto_parser.h"
#include "core/import/strace_line.h"

namespace fathom {

namespace {

// Reads a varint at `*pos` (at most 10 bytes, within `end`).
bool ReadVarint(const uint8_t* data, size_t end, size_t* pos, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 70 && *pos < end; shift += 7) {
    uint8_t b = data[(*pos)++];
    v |= static_cast<uint64_t>(b & 0x7F) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return true;
    }
  }
  return false;
}

// Whether [begin, end) parses as protobuf fields. A field cut by the end of
// the buffer is fine when `cut_ok` (the detector may see a trace's first
// chunk only): what is there must still be well formed.
bool ParsesAsFields(const uint8_t* data, size_t begin, size_t end, bool cut_ok) {
  size_t pos = begin;
  while (pos < end) {
    uint64_t tag, len;
    if (!ReadVarint(data, end, &pos, &tag)) return cut_ok;
    if ((tag >> 3) == 0 || (tag >> 3) > 0x1FFFFFFF) return false;
    switch (tag & 7) {
      case 0:
        if (!ReadVarint(data, end, &pos, &len)) return cut_ok;
        break;
      case 1:
        pos += 8;
        break;
      case 5:
        pos += 4;
        break;
      case 2:
        if (!ReadVarint(data, end, &pos, &len)) return cut_ok;
        if (len > end - pos) return cut_ok;
        pos += len;
        break;
      default:  // groups (3, 4) are unused by Perfetto; 6 and 7 do not exist
        return false;
    }
    if (pos > end) return cut_ok;
  }
  return true;
}

// Text that merely starts with '\n' (0x0A, also a Trace's packet tag): only
// tabs, line breaks, printable ASCII and UTF-8 bytes in the first KiB. A
// real trace has control bytes there (short lengths, small varints).
bool LooksLikeText(const uint8_t* data, size_t size) {
  size_t n = size < 1024 ? size : 1024;
  for (size_t i = 0; i < n; ++i) {
    uint8_t c = data[i];
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return false;
    if (c == 0x7F) return false;
  }
  return true;
}

// A Perfetto Trace: packets (field 1, length-delimited) whose payloads parse
// as protobuf fields. Checks the first few packets of what is there.
bool LooksLikeProtoTrace(const uint8_t* data, size_t size) {
  size_t pos = 0;
  for (int packets = 0; pos < size && packets < 8; ++packets) {
    if (data[pos++] != 0x0A) return false;
    uint64_t len;
    if (!ReadVarint(data, size, &pos, &len)) return true;  // cut in the length
    size_t end = len > size - pos ? size : pos + static_cast<size_t>(len);
    if (!ParsesAsFields(data, pos, end, end == size)) return false;
    pos = end;
  }
  return true;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The ftrace text line "TASK-PID [CPU] FLAGS TS: event:" (a "(TGID)" may
// follow the pid), checked on the first line: a header-less systrace dump
// whose first task is not the idle task.
bool StartsWithFtraceEventLine(std::string_view t) {
  std::string_view line = t.substr(0, t.find('\n'));
  size_t open = line.find(" [");
  if (open == std::string_view::npos) return false;
  // Back over spaces and an optional "(TGID)" / "( ----)" to "-PID".
  size_t end = line.find_last_not_of(' ', open);
  if (end != std::string_view::npos && line[end] == ')') {
    size_t lp = line.rfind('(', end);
    if (lp == std::string_view::npos) return false;
    end = line.find_last_not_of(' ', lp - 1);
  }
  if (end == std::string_view::npos || !IsDigit(line[end])) return false;
  size_t dash = end;
  while (dash > 0 && IsDigit(line[dash])) --dash;
  if (line[dash] != '-' || dash == 0) return false;
  size_t cpu = open + 2, close = line.find(']', cpu);
  if (close == std::string_view::npos || close == cpu) return false;
  for (size_t i = cpu; i < close; ++i)
    if (!IsDigit(line[i])) return false;
  // "... 137012.464700: event_name:"
  size_t colon = line.find(": ", close);
  if (colon == std::string_view::npos || colon == 0 || !IsDigit(line[colon - 1])) return false;
  return line.rfind('.', colon) > close;
}

}  // namespace

TraceFormat DetectTraceFormat(const uint8_t* data, size_t size) {
  if (size == 0) return TraceFormat::kEmpty;
  std::string_view s(reinterpret_cast<const char*>(data), size);
  if (size >= 4 && memcmp(data, "PK\x03\x04", 4) == 0) return TraceFormat::kZip;
  if (size >= 262 && memcmp(data + 257, "ustar", 5) == 0) return TraceFormat::kTar;
  if (hprof::LooksLikeHprof(data, size)) return TraceFormat::kHprof;
  if (LooksLikeSimpleperfProto(data, size)) return TraceFormat::kSimpleperfProto;
  // Before the text checks: a Profile's first byte (0x0A) reads as whitespace.
  // LooksLikePprof tells it from a Perfetto Trace, which also starts with 0x0A.
  if (LooksLikePprof(data, size)) return TraceFormat::kPprof;
  // A Perfetto Trace starts with field 1 (packet), length-delimited: 0x0A,
  // which is also a line break. Binary content makes it a trace; text goes
  // through the text checks first (a leading blank line is common there).
  const bool maybe_proto = data[0] == 0x0A;
  if (maybe_proto && !LooksLikeText(data, size)) return TraceFormat::kProto;
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
  // atrace's text starts with a "cpus=N" line when it has no ftrace header.
  if (t.substr(0, 8) == "# tracer" || t.substr(0, 6) == "TRACE:" || t.substr(0, 5) == "cpus=")
    return TraceFormat::kSystraceText;
  if (t.substr(0, 1) == "<") return TraceFormat::kSystraceHtml;
  // atrace output with banner lines before its "TRACE:" marker.
  if (size_t m = t.substr(0, 4096).find("\nTRACE:"); m != std::string_view::npos)
    return TraceFormat::kSystraceText;
  // ftrace text without the header: "  <idle>-0  [000] ..."
  if (t.find("-0 ") != std::string_view::npos && t.find("[00") != std::string_view::npos)
    return TraceFormat::kSystraceText;
  if (StartsWithFtraceEventLine(t)) return TraceFormat::kSystraceText;
  if (LooksLikeStrace(t)) return TraceFormat::kStrace;
  if (LooksLikeCollapsedStacks(data, size)) return TraceFormat::kCollapsedStacks;
  // Printable bytes only, yet well-formed packets: a (tiny) trace after all.
  if (maybe_proto && LooksLikeProtoTrace(data, size)) return TraceFormat::kProto;
  return TraceFormat::kUnknown;
}

const char* TraceFormatName(TraceFormat f) {
  switch (f) {
    case TraceFormat::kUnknown:
      return "unknown";
    case TraceFormat::kProto:
      return "perfetto protobuf";
    case TraceFormat::kJson:
      return "chrome json";
    case TraceFormat::kSystraceText:
      return "systrace text";
    case TraceFormat::kSystraceHtml:
      return "systrace html";
    case TraceFormat::kArtAllocLog:
      return "tiallocsample log";
    case TraceFormat::kCollapsedStacks:
      return "collapsed stacks";
    case TraceFormat::kPprof:
      return "pprof";
    case TraceFormat::kSimpleperfProto:
      return "simpleperf proto";
    case TraceFormat::kStrace:
      return "strace";
    case TraceFormat::kHprof:
      return "hprof";
    case TraceFormat::kZip:
      return "zip";
    case TraceFormat::kTar:
      return "tar";
    case TraceFormat::kEmpty:
      return "empty";
  }
  return "unknown";
}

}  // namespace fathom
