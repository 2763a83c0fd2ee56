// Parses one atrace / trace_marker line ("B|1234|name", "C|1|cnt|42", ...)
// into a struct. A pure function: both the ftrace `print` event and the
// systrace text importer feed it their lines.
//
// Grammar (fields separated by '|', a trailing '\n' is ignored):
//   B|tgid|name                 begin a slice on the writing thread
//   E[|tgid[|...]]              end the innermost slice of the writing thread
//   C|tgid|name|value[|cat]     counter value
//   S|tgid|name|cookie          async begin (process track keyed by name, cookie)
//   F|tgid|name|cookie          async end
//   I|tgid|name                 thread instant
//   N|tgid|track|name           instant on a named process track
//   G|tgid|track|name|cookie    async begin on a named process track
//   H|tgid|track[|name]|cookie  async end on a named process track
// Only B's name runs to the end of the line ('|' included; an empty one is
// "[empty slice name]"); the other fields each end at the next '|' and
// anything after the last one is ignored. A missing tgid (except for E), an
// empty name or track, or a cookie that is not a number is a failure. These
// are upstream's rules, found with trace_processor_shell on crafted lines.
#pragma once

#include <cstdint>
#include <string_view>

namespace fathom {

struct SystraceMarker {
  char phase = 0;
  int64_t tgid = 0;  // 0 when absent or empty
  std::string_view name;
  std::string_view track;     // N, G, H
  std::string_view category;  // C (optional 5th field)
  int64_t cookie = 0;         // S, F, G, H
  double value = 0;           // C
};

enum class SystraceParseResult {
  kOk,
  kUnsupported,  // not a marker line at all (e.g. free text): ignore it
  kFailure,      // looked like a marker but malformed
};

SystraceParseResult ParseSystraceMarker(std::string_view line, SystraceMarker* out);

}  // namespace fathom
