// Text that came from a trace or a device (archive member names, slice and
// process names, warnings quoting them, adb serials, device properties, what
// a target's programs printed) is untrusted: raw control bytes in it would
// drive the user's terminal (move the cursor, retitle the window, rewrite
// earlier lines, hide text). fathom-cli passes such text through TerminalSafe
// before printing it for a person to read. Machine formats (query csv/json,
// profiles csv, flamegraph exports) stay byte-exact: they are data.
#pragma once

#include <string>
#include <string_view>

namespace fathom::cli {

enum class Newlines {
  kEscape,  // one-line text (a name, a warning line): \n and \t become \n, \t
  kKeep,    // multi-line text (a device log, a result table): \n and \t stay
};

// `text` with every byte a terminal would act on made visible:
// C0 controls (U+0000–U+001F, except \n and \t with Newlines::kKeep) and DEL
// become \xHH (ESC is \x1b; \r, \n and \t are spelled so); C1 controls
// (U+0080–U+009F, which some terminals treat as ESC sequences) become \u00HH;
// bytes that are not valid UTF-8 (stray continuation bytes, overlong forms,
// surrogates, truncated sequences) become \xHH each. Valid UTF-8 text passes
// through unchanged, so ordinary names print as they are.
std::string TerminalSafe(std::string_view text, Newlines newlines = Newlines::kEscape);

}  // namespace fathom::cli
