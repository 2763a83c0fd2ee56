// Finds the traces inside a systrace HTML page and inside atrace's zlib
// output, so the loader can feed each one to its own tokenizer and merge them.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace fathom {

// The contents of every `<script class="trace-data" ...>` block, in page
// order (ftrace text, Chrome JSON, ...). Empty when the page has none (older
// pages keep the text in a JavaScript string: load the page as text then).
// `error` is set (and the blocks before it returned) when a block is not
// closed by `</script>`.
std::vector<std::string_view> FindHtmlTraceDataBlocks(std::string_view page, std::string* error);

// `atrace --async_dump -z` output: optional banner lines, "TRACE:\n", then a
// zlib stream. Returns the offset of the zlib stream, or nullopt when the
// data after "TRACE:" is plain text.
std::optional<size_t> FindCompressedAtracePayload(const uint8_t* data, size_t size);

}  // namespace fathom
