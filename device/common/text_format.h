// Protobuf text format → binary, without libprotobuf: driven by the generated schema
// (proto_schema.h). Covers what configs use: scalars, enums by name or number, strings
// with C escapes, nested messages with {} or <>, `[a, b]` lists for repeated fields,
// optional ':' before messages, ',' or ';' separators and '#' comments. Not supported:
// extensions, Any expansion, group syntax (none appear in TraceConfig).
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace fathom::device {

// `message_name` as in the schema, e.g. "TraceConfig". Errors name the line, e.g.
// "config line 3: unknown field 'duraton_ms' in TraceConfig".
Result<std::string> TextFormatToBinary(std::string_view text, std::string_view message_name);

}  // namespace fathom::device
