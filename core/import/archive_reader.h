// Splits container files into the traces they hold: zip (stored or deflate
// members, inflated with zlib; zip64 sizes) and tar (ustar/GNU, pax headers
// skipped). ArchiveStream reads an archive front to back and hands out one
// member at a time as a ChunkReader, so a large trace inside an archive is
// tokenized chunk by chunk and never sits in memory whole. The loader merges
// the members into one storage, as Perfetto does when several files are
// opened together.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/import/chunk_reader.h"

namespace fathom {

class ArchiveStream {
 public:
  enum class Kind { kZip, kTar };
  // Reads from `in` (not owned; it must outlive this). `head` holds the bytes
  // already read from `in` (format detection); they come first.
  ArchiveStream(Kind kind, ChunkReader* in, const uint8_t* head, size_t head_size);
  ~ArchiveStream();
  ArchiveStream(const ArchiveStream&) = delete;
  ArchiveStream& operator=(const ArchiveStream&) = delete;

  // Skips what is left of the current member and moves to the next regular
  // file (directories and empty files are skipped). False at the end of the
  // archive, and after an error was already reported. Errors name the byte
  // offset in the archive and the member.
  Result<bool> NextMember();
  const std::string& name() const { return name_; }
  // The current member's (inflated) bytes; valid until NextMember().
  ChunkReader* member();

 private:
  class MemberReader;
  // Reads up to `cap` bytes of the current member; 0 at its end.
  Result<size_t> ReadMember(uint8_t* dst, size_t cap);
  // Reads (and drops) the rest of the current member.
  Status SkipRest();
  // Skips the member's `remaining_` raw bytes without copying them.
  Status SkipRemaining();
  Result<bool> NextZipMember();
  Result<bool> NextTarMember();
  // Makes at least `want` unread bytes available unless the input ends.
  Status Fill(size_t want);
  size_t available() const { return buf_.size() - buf_pos_; }
  const uint8_t* peek() const { return buf_.data() + buf_pos_; }
  void Consume(size_t n) {
    buf_pos_ += n;
    pos_ += n;
  }
  Status Fail(uint64_t offset, const std::string& msg);

  Kind kind_;
  ChunkReader* in_;
  std::unique_ptr<ChunkReader> member_;  // a MemberReader
  std::vector<uint8_t> buf_;
  size_t buf_pos_ = 0;
  bool eof_ = false;
  bool failed_ = false;
  bool any_member_ = false;
  uint64_t pos_ = 0;  // archive offset of the next unread byte

  // The current member.
  std::string name_;
  bool in_member_ = false;
  bool deflate_ = false;
  bool sizes_follow_ = false;  // zip data descriptor after the data
  bool zip64_ = false;
  uint64_t remaining_ = 0;  // stored: bytes left; deflate: compressed bytes left (if known)
  uint64_t padding_ = 0;    // tar: zero bytes after the data
  uint64_t data_offset_ = 0;
  z_stream zs_{};
  bool zs_init_ = false;
};

struct ArchiveMember {
  std::string name;
  std::vector<uint8_t> data;
};

// Every regular-file member of an archive in memory, in archive order
// (ArchiveStream over the buffer). Members before a damaged one are still
// returned through `partial` when it is not null.
Result<std::vector<ArchiveMember>> ExtractZip(const uint8_t* data, size_t size,
                                              std::vector<ArchiveMember>* partial = nullptr);
Result<std::vector<ArchiveMember>> ExtractTar(const uint8_t* data, size_t size,
                                              std::vector<ArchiveMember>* partial = nullptr);

// Raw DEFLATE (no zlib/gzip header), as zip stores it. Appends to `out`.
Status InflateRaw(const uint8_t* data, size_t size, size_t expected, std::vector<uint8_t>* out);

}  // namespace fathom
