// libFuzzer target: zip and tar containers. Each input goes through
// ExtractZip and ExtractTar (whole buffer), through ArchiveStream fed by a
// reader that hands out a few bytes at a time (headers, names and deflate
// streams cut anywhere), and, when it is detected as an archive, through the
// loader, which nests archives and unwraps gzip/zstd members.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/import/archive_reader.h"
#include "core/import/chunk_reader.h"
#include "core/import/trace_format.h"
#include "fuzz_load.h"

namespace {

// Serves a buffer in pieces of at most `step` bytes, like a slow file.
class DribbleReader : public fathom::ChunkReader {
 public:
  DribbleReader(const uint8_t* data, size_t size, size_t step)
      : data_(data), size_(size), step_(step) {}
  fathom::Result<size_t> Read(uint8_t* dst, size_t cap) override {
    size_t n = std::min({cap, step_, size_ - pos_});
    if (n > 0) memcpy(dst, data_ + pos_, n);
    pos_ += n;
    return n;
  }
  uint64_t file_offset() const override { return pos_; }
  uint64_t file_size() const override { return size_; }

 private:
  const uint8_t* data_;
  size_t size_, step_, pos_ = 0;
};

// Streams every member to its end; a member that yields more bytes than the
// zip format can encode from this input would be a reader bug.
void StreamMembers(fathom::ArchiveStream::Kind kind, const uint8_t* data, size_t size,
                   size_t step) {
  DribbleReader in(data, size, step);
  fathom::ArchiveStream archive(kind, &in, nullptr, 0);
  std::vector<uint8_t> buf(4096);
  for (int members = 0; members < 1000; ++members) {
    auto next = archive.NextMember();
    if (!next.ok() || !*next) return;
    uint64_t total = 0;
    while (true) {
      auto got = archive.member()->Read(buf.data(), buf.size());
      if (!got.ok() || *got == 0) break;
      total += *got;
      // Deflate expands at most ~1032:1; stored members cannot grow at all.
      if (total > 1100 * (uint64_t{size} + 1024)) abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)fathom::ExtractZip(data, size);
  std::vector<fathom::ArchiveMember> partial;
  (void)fathom::ExtractTar(data, size, &partial);
  // The piece size comes from the input so that libFuzzer explores it too:
  // 64 B to 16 KiB. (Not smaller: ArchiveStream::Fill zero-fills 1 MiB per
  // read, so 1-byte reads would cost seconds per input; reported.)
  size_t step = size_t{64} << (size ? data[size - 1] % 9 : 0);
  StreamMembers(fathom::ArchiveStream::Kind::kZip, data, size, step);
  StreamMembers(fathom::ArchiveStream::Kind::kTar, data, size, step);
  fathom::TraceFormat f = fathom::DetectTraceFormat(data, size);
  if (f == fathom::TraceFormat::kZip || f == fathom::TraceFormat::kTar)
    fathom::fuzz::LoadAndQuery(data, size);
  return 0;
}
