#include "core/import/chunk_reader.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "core/base/platform.h"

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
    zs_.next_out = dst;
    zs_.avail_out = static_cast<uInt>(std::min<size_t>(cap, 1u << 30));
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
        stream_end_ = true;
        if (zs_.avail_in == 0) {
          // Peek whether another member follows.
          auto n = inner_->Read(in_.get(), kInputBufferSize);
          if (!n.ok()) return n.status();
          if (*n == 0) {
            done_ = true;
            break;
          }
          zs_.next_in = in_.get();
          zs_.avail_in = static_cast<uInt>(*n);
        }
        inflateReset(&zs_);
        stream_end_ = false;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        return ErrorStatus("gzip data is corrupt near compressed offset " +
                           std::to_string(inner_->file_offset() - zs_.avail_in) + " (" +
                           (zs_.msg ? zs_.msg : "inflate error") + ")");
      }
    }
    size_t produced = static_cast<size_t>(zs_.next_out - dst);
    return produced;
  }
  uint64_t file_offset() const override { return inner_->file_offset() - zs_.avail_in; }
  uint64_t file_size() const override { return inner_->file_size(); }
  std::string end_warning() const override {
    return truncated_ ? "the gzip stream ends before its end marker (file cut short); loaded what "
                        "was there"
                      : "";
  }

 private:
  std::unique_ptr<ChunkReader> inner_;
  std::unique_ptr<uint8_t[]> in_;
  z_stream zs_;
  bool done_ = false;
  bool stream_end_ = false;
  bool truncated_ = false;
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
      size_t rc = ZSTD_decompressStream(ds_, &out, &input_);
      if (ZSTD_isError(rc))
        return ErrorStatus(std::string("zstd data is corrupt: ") + ZSTD_getErrorName(rc));
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
};

// A borrowed stream with its first bytes already read (to look at them): gives those back
// first, then the rest of the stream.
class PeekedReader : public ChunkReader {
 public:
  PeekedReader(ChunkReader* inner, const uint8_t* peeked, size_t n)
      : inner_(inner), peeked_(peeked, peeked + n) {}
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
  uint8_t magic[4] = {0, 0, 0, 0};
  size_t n = fread(magic, 1, sizeof magic, f);
  rewind(f);
  return Unwrap(std::make_unique<FileReader>(f, size), magic, n);
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

Status InflateBuffer(const uint8_t* data, size_t size, std::vector<uint8_t>* out) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return ErrorStatus("inflateInit failed");
  zs.next_in = const_cast<uint8_t*>(data);
  zs.avail_in = static_cast<uInt>(size);
  uint8_t buf[64 * 1024];
  int rc;
  do {
    zs.next_out = buf;
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&zs);
      return ErrorStatus(std::string("corrupt deflate stream: ") + (zs.msg ? zs.msg : "error"));
    }
    out->insert(out->end(), buf, buf + (sizeof buf - zs.avail_out));
  } while (rc != Z_STREAM_END && (zs.avail_in > 0 || zs.avail_out == 0));
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) return ErrorStatus("truncated deflate stream");
  return Status::Ok();
}

Status ZstdDecompressBuffer(const uint8_t* data, size_t size, std::vector<uint8_t>* out) {
  ZSTD_DStream* ds = ZSTD_createDStream();
  ZSTD_initDStream(ds);
  ZSTD_inBuffer in{data, size, 0};
  uint8_t buf[64 * 1024];
  size_t rc = 1;
  while (in.pos < in.size) {
    ZSTD_outBuffer o{buf, sizeof buf, 0};
    rc = ZSTD_decompressStream(ds, &o, &in);
    if (ZSTD_isError(rc)) {
      ZSTD_freeDStream(ds);
      return ErrorStatus(std::string("corrupt zstd stream: ") + ZSTD_getErrorName(rc));
    }
    out->insert(out->end(), buf, buf + o.pos);
    if (o.pos == 0 && in.pos == in.size) break;
  }
  ZSTD_freeDStream(ds);
  return Status::Ok();
}

}  // namespace fathom
