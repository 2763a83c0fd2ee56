// Splits container files into the traces they hold: zip (stored or deflate
// members, inflated with zlib) and tar (ustar/GNU, pax headers skipped). The
// loader merges the members into one storage, as Perfetto does when several
// files are opened together.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace fathom {

struct ArchiveMember {
  std::string name;
  std::vector<uint8_t> data;
};

// Regular-file members in archive order (directories and empty files are
// skipped). Errors name the member and byte offset; members before a damaged
// one are still returned through `partial` when it is not null.
Result<std::vector<ArchiveMember>> ExtractZip(const uint8_t* data, size_t size,
                                              std::vector<ArchiveMember>* partial = nullptr);
Result<std::vector<ArchiveMember>> ExtractTar(const uint8_t* data, size_t size,
                                              std::vector<ArchiveMember>* partial = nullptr);

// Raw DEFLATE (no zlib/gzip header), as zip stores it. Appends to `out`.
Status InflateRaw(const uint8_t* data, size_t size, size_t expected, std::vector<uint8_t>* out);

}  // namespace fathom
