// What the load loop needs from a format's tokenizer: feed it chunks of the
// (decompressed) stream; it pushes sortable events into the Sorter and keeps
// the chunks those events point into.
#pragma once

#include <cstdint>
#include <memory>

#include "base/status.h"
#include "core/import/trace_blob.h"

namespace fathom {

class ChunkedTokenizer {
 public:
  virtual ~ChunkedTokenizer() = default;
  // Tokenizes every whole unit (packet, event) in `blob`, whose first byte is
  // at `stream_offset`. Returns how many trailing bytes did not form a whole
  // unit (the caller prepends them to the next chunk), or an error for bytes
  // that can never be valid (after keeping what came before). The blob must
  // stay alive at least until the next Feed: the caller copies the trailing
  // bytes out of it after this returns.
  virtual Result<size_t> Feed(std::unique_ptr<TraceBlob> blob, uint64_t stream_offset) = 0;
  // Whole units tokenized so far.
  virtual uint64_t units() const = 0;
  virtual size_t retained_bytes() const = 0;
};

}  // namespace fathom
