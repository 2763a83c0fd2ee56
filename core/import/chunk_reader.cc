#include "core/import/chunk_reader.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "base/platform.h"

namespace fathom {
namespace {

constexpr size_t kInputBufferSize = 1 << 20;

class FileReader : public ChunkReader {
 public:
  FileReader(FILE* f, uint64_t size) : f_(f), size_(size) {}
  ~FileReader() override { fclose(f_); }
  Result<size_t> Read(uint8_t* dst, size_t cap) override {
    size_t n = fread(dst, 1, cap, f_);
    if (n == 0 && ferror(f_)) return ErrorStatus("read error at offset " + std::to_string(offset_));
    offset_ += n;
    return n;
  }
  uint64_t file_offset() const override { return offset_; }
  uint64_t file_size() const override { return size_; }

 private:
  FILE* f_;
  uint64_t size_;
  uint64_t offset_ = 0;
};

class MemoryReader : public ChunkReader {
 public:
  MemoryReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  Result<size_t> Read(uint8_t* dst, size_t cap) override {
    size_t n = std::min(cap, size_ - offset_);
    memcpy(dst, data_ + offset_, n);
    offset_ += n;
    return n;
  }
  uint64_t file_offset() const override { return offset_; }
  uint64_t file_size() const override { return size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t offset_ = 0;
};

// Inflates gzip (or zlib) members as a stream; concatenated gzip members are
// read one after another, as gunzip does.
class GzipReader : public ChunkReader {
 public:
  explicit GzipReader(std::unique_ptr<ChunkReader> inner)
      : inner_(std::move(inner)), in_(new uint8_t[kInputBufferSize]) {
    memset(&zs_, 0, sizeof zs_);
    inflateInit2(&zs_, 15 + 32);
  }
  ~GzipReader() override { inflateEnd(&zs_); }
  const char* wrapper() const override { return "gzip"; }

  Result<size_t> Read(uint8_t* dst, size_t cap) override {
    if (!deferred_.ok()) return std::exchange(deferred_, Status::Ok());
    zs_.next_out = dst;
    zs_.avail_out = static_cast<uInt>(std::min<size_t>(cap, 1u << 30));
    Status st = Inflate();
    size_t produced = static_cast<size_t>(zs_.next_out - dst);
    if (!st.ok()) {
      // What inflated before the damage is good data: hand it out now and the
      // error with the next read, so a bad CRC or a corrupt block near the end
      // of a large chunk loses nothing that came before it.
      if (produced == 0) return st;
      deferred_ = st;
      done_ = true;
    }
    return produced;
  }
  uint64_t file_offset() const override { return inner_->file_offset() - zs_.avail_in; }
  uint64_t file_size() const override { return inner_->file_size(); }
  std::string end_warning() const override {
    if (truncated_)
      return "the gzip stream ends before its end marker (file cut short); loaded what was there";
    if (trailing_garbage_at_)
      return "compressed byte offset " + std::to_string(trailing_garbage_at_) +
             ": bytes after the end of the gzip data are not gzip; ignored";
    return "";
  }

 private:
  // Inflates into zs_.next_out until it is full or the input ends.
  Status Inflate() {
    while (zs_.avail_out > 0 && !done_) {
      if (zs_.avail_in == 0) {
        auto n = inner_->Read(in_.get(), kInputBufferSize);
        if (!n.ok()) return n.status();
        if (*n == 0) {
          if (!stream_end_) truncated_ = true;
          done_ = true;
          break;
        }
        zs_.next_in = in_.get();
        zs_.avail_in = static_cast<uInt>(*n);
      }
      int rc = inflate(&zs_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        if (Status st = NextMember(); !st.ok()) return st;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        // Where inflate stopped: a bad CRC is found at the member's trailer.
        return ErrorStatus("gzip data is corrupt near compressed offset " +
                           std::to_string(compressed_offset()) + " (" +
                           (zs_.msg ? zs_.msg : "inflate error") + ")");
      }
    }
    return Status::Ok();
  }
  // After a member's end: another gzip member may follow (read one after
  // another, as gunzip does); anything else is trailing garbage, which gunzip
  // ignores with a warning, and so does this.
  Status NextMember() {
    stream_end_ = true;
    if (zs_.avail_in < 2) {
      uint8_t keep = zs_.avail_in ? zs_.next_in[0] : 0;
      size_t have = zs_.avail_in;
      in_[0] = keep;
      auto n = inner_->Read(in_.get() + have, kInputBufferSize - have);
      if (!n.ok()) return n.status();
      zs_.next_in = in_.get();
      zs_.avail_in = static_cast<uInt>(have + *n);
      if (zs_.avail_in == 0) {
        done_ = true;
        return Status::Ok();
      }
    }
    if (zs_.avail_in < 2 || zs_.next_in[0] != 0x1f || zs_.next_in[1] != 0x8b) {
      trailing_garbage_at_ = compressed_offset();
      done_ = true;
      return Status::Ok();
    }
    inflateReset(&zs_);
    stream_end_ = false;
    return Status::Ok();
  }
  uint64_t compressed_offset() const { return inner_->file_offset() - zs_.avail_in; }

  std::unique_ptr<ChunkReader> inner_;
  std::unique_ptr<uint8_t[]> in_;
  z_stream zs_;
  bool done_ = false;
  bool stream_end_ = false;
  bool truncated_ = false;
  uint64_t trailing_garbage_at_ = 0;  // 0: none (a member ends after byte 0)
  Status deferred_;
};

class ZstdReader : public ChunkReader {
 public:
  explicit ZstdReader(std::unique_ptr<ChunkReader> inner)
      : inner_(std::move(inner)), in_(new uint8_t[kInputBufferSize]), ds_(ZSTD_createDStream()) {
    ZSTD_initDStream(ds_);
  }
  ~ZstdReader() override { ZSTD_freeDStream(ds_); }
  const char* wrapper() const override { return "zstd"; }

  Result<size_t> Read(uint8_t* dst, size_t cap) override {
    if (!deferred_.ok()) return std::exchange(deferred_, Status::Ok());
    ZSTD_outBuffer out{dst, cap, 0};
    while (out.pos < out.size) {
      if (input_.pos == input_.size) {
        if (eof_) break;
        auto n = inner_->Read(in_.get(), kInputBufferSize);
        if (!n.ok()) return n.status();
        if (*n == 0) {
          eof_ = true;
          break;
        }
        input_ = ZSTD_inBuffer{in_.get(), *n, 0};
      }
      uint64_t at = file_offset();
      size_t rc = ZSTD_decompressStream(ds_, &out, &input_);
      if (ZSTD_isError(rc)) {
        Status st = ErrorStatus("zstd data is corrupt near compressed offset " +
                                std::to_string(at) + ": " + ZSTD_getErrorName(rc));
        if (out.pos == 0) return st;
        deferred_ = st;  // as gzip: the bytes before the damage first
        eof_ = true;
        input_.pos = input_.size;
        break;
      }
      last_rc_ = rc;  // 0 once a frame is complete
    }
    return out.pos;
  }
  uint64_t file_offset() const override {
    return inner_->file_offset() - (input_.size - input_.pos);
  }
  uint64_t file_size() const override { return inner_->file_size(); }
  std::string end_warning() const override {
    return last_rc_ != 0 ? "the zstd stream ends inside a frame (file cut short); loaded what was "
                           "there"
                         : "";
  }

 private:
  std::unique_ptr<ChunkReader> inner_;
  std::unique_ptr<uint8_t[]> in_;
  size_t last_rc_ = 0;
  ZSTD_DStream* ds_;
  ZSTD_inBuffer input_{nullptr, 0, 0};
  bool eof_ = false;
  Status deferred_;
};

// A stream with its first bytes already read (to look at them): gives those back
// first, then the rest of the stream. Borrowed, or owned when it has no other owner.
class PeekedReader : public ChunkReader {
 public:
  PeekedReader(ChunkReader* inner, const uint8_t* peeked, size_t n)
      : inner_(inner), peeked_(peeked, peeked + n) {}
  PeekedReader(std::unique_ptr<ChunkReader> inner, const uint8_t* peeked, size_t n)
      : PeekedReader(inner.get(), peeked, n) {
    owned_ = std::move(inner);
  }
  Result<size_t> Read(uint8_t* dst, size_t cap) override {
    if (!deferred_.ok()) return std::exchange(deferred_, Status::Ok());
    size_t n = 0;
    if (pos_ < peeked_.size()) {
      n = std::min(cap, peeked_.size() - pos_);
      memcpy(dst, peeked_.data() + pos_, n);
      pos_ += n;
    }
    // Fill the rest too: callers detect formats on the first read.
    if (n < cap) {
      auto more = inner_->Read(dst + n, cap - n);
      if (!more.ok()) {
        if (n == 0) return more;
        deferred_ = more.status();  // give the bytes now, the error on the next read
        return n;
      }
      n += *more;
    }
    return n;
  }
  uint64_t file_offset() const override { return inner_->file_offset() - (peeked_.size() - pos_); }
  uint64_t file_size() const override { return inner_->file_size(); }
  std::string end_warning() const override { return inner_->end_warning(); }

 private:
  ChunkReader* inner_;
  std::unique_ptr<ChunkReader> owned_;
  std::vector<uint8_t> peeked_;
  size_t pos_ = 0;
  Status deferred_;
};

// Adds the decompressor the leading bytes call for.
std::unique_ptr<ChunkReader> Unwrap(std::unique_ptr<ChunkReader> reader, const uint8_t* magic,
                                    size_t n) {
  if (n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b)
    return std::make_unique<GzipReader>(std::move(reader));
  if (n >= 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd)
    return std::make_unique<ZstdReader>(std::move(reader));
  return reader;
}

}  // namespace

Result<std::unique_ptr<ChunkReader>> OpenTraceFile(const std::string& path) {
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) return ErrorStatus(path + ": cannot open: " + strerror(errno));
  uint64_t size = platform::FileSizeAndRewind(f);
  // The leading bytes are read once and handed back, never re-read by
  // rewinding: a pipe or FIFO cannot rewind (its size reads as 0, too).
  auto file = std::make_unique<FileReader>(f, size);
  uint8_t magic[4] = {0, 0, 0, 0};
  size_t n = 0;
  while (n < sizeof magic) {
    auto got = file->Read(magic + n, sizeof magic - n);
    if (!got.ok()) return ErrorStatus(path + ": " + got.status().message());
    if (*got == 0) break;
    n += *got;
  }
  return Unwrap(std::make_unique<PeekedReader>(std::move(file), magic, n), magic, n);
}

Result<std::unique_ptr<ChunkReader>> UnwrapStream(ChunkReader* stream) {
  uint8_t magic[4];
  size_t n = 0;
  while (n < sizeof magic) {
    auto got = stream->Read(magic + n, sizeof magic - n);
    if (!got.ok()) return got.status();
    if (*got == 0) break;
    n += *got;
  }
  return Unwrap(std::make_unique<PeekedReader>(stream, magic, n), magic, n);
}

std::unique_ptr<ChunkReader> MakeMemoryReader(const uint8_t* data, size_t size) {
  return Unwrap(std::make_unique<MemoryReader>(data, size), data, size < 4 ? size : 4);
}

namespace {
std::string PastLimit(size_t max_out) {
  return "inflates to more than " + std::to_string(max_out) + " bytes (the limit)";
}
}  // namespace

Status InflateBuffer(const uint8_t* data, size_t size, std::vector<uint8_t>* out, size_t max_out) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return ErrorStatus("inflateInit failed");
  zs.next_in = const_cast<uint8_t*>(data);
  zs.avail_in = static_cast<uInt>(size);
  uint8_t buf[64 * 1024];
  size_t produced = 0;
  int rc;
  do {
    zs.next_out = buf;
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      // What inflated before the damage stays in `out`.
      std::string msg = zs.msg ? zs.msg : "error";
      uint64_t at = zs.total_in;
      inflateEnd(&zs);
      return ErrorStatus("corrupt deflate stream at compressed offset " + std::to_string(at) +
                         ": " + msg);
    }
    size_t n = sizeof buf - zs.avail_out;
    if (produced + n > max_out) {
      inflateEnd(&zs);
      return ErrorStatus(PastLimit(max_out));
    }
    produced += n;
    out->insert(out->end(), buf, buf + n);
  } while (rc != Z_STREAM_END && (zs.avail_in > 0 || zs.avail_out == 0));
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) return ErrorStatus("truncated deflate stream");
  return Status::Ok();
}

Status ZstdDecompressBuffer(const uint8_t* data, size_t size, std::vector<uint8_t>* out,
                            size_t max_out) {
  ZSTD_DStream* ds = ZSTD_createDStream();
  ZSTD_initDStream(ds);
  ZSTD_inBuffer in{data, size, 0};
  uint8_t buf[64 * 1024];
  size_t produced = 0;
  size_t rc = 1;
  while (in.pos < in.size) {
    ZSTD_outBuffer o{buf, sizeof buf, 0};
    size_t at = in.pos;
    rc = ZSTD_decompressStream(ds, &o, &in);
    if (ZSTD_isError(rc)) {
      ZSTD_freeDStream(ds);
      return ErrorStatus("corrupt zstd stream at compressed offset " + std::to_string(at) + ": " +
                         ZSTD_getErrorName(rc));
    }
    if (produced + o.pos > max_out) {
      ZSTD_freeDStream(ds);
      return ErrorStatus(PastLimit(max_out));
    }
    produced += o.pos;
    out->insert(out->end(), buf, buf + o.pos);
    if (o.pos == 0 && in.pos == in.size) break;
  }
  ZSTD_freeDStream(ds);
  if (rc != 0) return ErrorStatus("truncated zstd stream");
  return Status::Ok();
}

}  // namespace fathom
