// Where the bytes of an imported event came from. Sorted events are
// references into the retained file chunks, so a problem found while parsing
// one can still name its source and byte offset: the chunk that holds the
// event's first byte knows both. Bytes inflated from compressed_packets have
// no file offset of their own; they are named by the compressed packet's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fathom {

class ByteOrigins {
 public:
  struct Origin {
    std::string source;
    uint64_t offset = 0;    // of the byte in its source (or of the compressed packet)
    bool inflated = false;  // the byte was inflated from compressed_packets at `offset`
  };

  // [base, base + size) are the bytes of `source` from `offset` on (or, when
  // `inflated`, came out of the compressed packet at `offset`). A range that
  // overlaps an earlier one replaces it: that memory was freed and reused.
  void Add(const uint8_t* base, size_t size, const std::string& source, uint64_t offset,
           bool inflated = false);

  // The origin of the byte at `p`, if a registered range holds it.
  std::optional<Origin> Locate(const uint8_t* p) const;

 private:
  struct Range {
    size_t size;
    uint32_t source;  // index into sources_
    uint64_t offset;
    bool inflated;
  };
  std::map<uintptr_t, Range> ranges_;  // by first byte
  std::vector<std::string> sources_;
};

}  // namespace fathom
