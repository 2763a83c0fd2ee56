#include "adb/sync_compression.h"

#include <algorithm>

#ifdef FATHOM_ADB_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef FATHOM_ADB_HAVE_LZ4
#include <lz4frame.h>
#endif
#ifdef FATHOM_ADB_HAVE_BROTLI
#include <brotli/decode.h>
#include <brotli/encode.h>
#endif

namespace fathom::adb {
namespace {

// Output pieces handed to sinks: one DATA payload's worth.
constexpr size_t kBlock = 64 * 1024;

class NullEncoder : public SyncEncoder {
 public:
  Status Encode(std::string_view in, bool, const ChunkSink& out) override {
    for (size_t at = 0; at < in.size(); at += kBlock) {
      if (Status s = out(in.substr(at, kBlock)); !s.ok()) return s;
    }
    return Status::Ok();
  }
};

class NullDecoder : public SyncDecoder {
 public:
  Status Decode(std::string_view in, const ChunkSink& out) override {
    return in.empty() ? Status::Ok() : out(in);
  }
  Status Finish() override { return Status::Ok(); }
};

#ifdef FATHOM_ADB_HAVE_ZSTD
class ZstdEncoder : public SyncEncoder {
 public:
  ZstdEncoder() : ctx_(ZSTD_createCCtx()), buf_(kBlock, '\0') {
    // Level 1 like adb: the link, not the ratio, limits a transfer.
    ZSTD_CCtx_setParameter(ctx_, ZSTD_c_compressionLevel, 1);
  }
  ~ZstdEncoder() override { ZSTD_freeCCtx(ctx_); }
  Status Encode(std::string_view data, bool finish, const ChunkSink& out) override {
    ZSTD_inBuffer in{data.data(), data.size(), 0};
    while (true) {
      ZSTD_outBuffer o{buf_.data(), buf_.size(), 0};
      size_t rc = ZSTD_compressStream2(ctx_, &o, &in, finish ? ZSTD_e_end : ZSTD_e_continue);
      if (ZSTD_isError(rc)) return ErrorStatus(std::string("zstd: ") + ZSTD_getErrorName(rc));
      if (o.pos > 0) {
        if (Status s = out(std::string_view(buf_.data(), o.pos)); !s.ok()) return s;
      }
      // Done when all input is taken and (when finishing) the frame is flushed (rc == 0).
      if (in.pos == in.size && (!finish || rc == 0)) return Status::Ok();
    }
  }

 private:
  ZSTD_CCtx* ctx_;
  std::string buf_;
};

class ZstdDecoder : public SyncDecoder {
 public:
  ZstdDecoder() : ctx_(ZSTD_createDCtx()), buf_(kBlock, '\0') {}
  ~ZstdDecoder() override { ZSTD_freeDCtx(ctx_); }
  Status Decode(std::string_view data, const ChunkSink& out) override {
    ZSTD_inBuffer in{data.data(), data.size(), 0};
    while (in.pos < in.size || full_) {
      if (done_) {  // the frame ended: nothing may follow it
        if (in.pos < in.size) return ErrorStatus("zstd: data after the end of the stream");
        break;
      }
      ZSTD_outBuffer o{buf_.data(), buf_.size(), 0};
      size_t rc = ZSTD_decompressStream(ctx_, &o, &in);
      if (ZSTD_isError(rc)) return ErrorStatus(std::string("zstd: ") + ZSTD_getErrorName(rc));
      done_ = rc == 0;
      // A full buffer may hide more output held inside zstd: call again even without input.
      full_ = o.pos == o.size;
      if (o.pos > 0) {
        if (Status s = out(std::string_view(buf_.data(), o.pos)); !s.ok()) return s;
      }
    }
    return Status::Ok();
  }
  Status Finish() override {
    return done_ ? Status::Ok() : ErrorStatus("zstd: compressed stream ended early");
  }

 private:
  ZSTD_DCtx* ctx_;
  std::string buf_;
  bool done_ = false, full_ = false;
};
#endif  // FATHOM_ADB_HAVE_ZSTD

#ifdef FATHOM_ADB_HAVE_LZ4
class Lz4Encoder : public SyncEncoder {
 public:
  Lz4Encoder() { LZ4F_createCompressionContext(&ctx_, LZ4F_VERSION); }
  ~Lz4Encoder() override { LZ4F_freeCompressionContext(ctx_); }
  Status Encode(std::string_view data, bool finish, const ChunkSink& out) override {
    // LZ4F needs room for a whole compressed block per call: feed it 64 KiB at a time into a
    // buffer of LZ4F_compressBound(64 KiB), then cut that into DATA-sized pieces.
    buf_.resize(std::max<size_t>(LZ4F_compressBound(kBlock, nullptr), LZ4F_HEADER_SIZE_MAX));
    auto emit = [&](size_t n) -> Status {
      for (size_t at = 0; at < n; at += kBlock) {
        if (Status s = out(std::string_view(buf_.data() + at, std::min(kBlock, n - at))); !s.ok())
          return s;
      }
      return Status::Ok();
    };
    if (!begun_) {
      size_t rc = LZ4F_compressBegin(ctx_, buf_.data(), buf_.size(), nullptr);
      if (LZ4F_isError(rc)) return ErrorStatus(std::string("lz4: ") + LZ4F_getErrorName(rc));
      begun_ = true;
      if (Status s = emit(rc); !s.ok()) return s;
    }
    for (size_t at = 0; at < data.size(); at += kBlock) {
      const size_t n = std::min(kBlock, data.size() - at);
      size_t rc = LZ4F_compressUpdate(ctx_, buf_.data(), buf_.size(), data.data() + at, n, nullptr);
      if (LZ4F_isError(rc)) return ErrorStatus(std::string("lz4: ") + LZ4F_getErrorName(rc));
      if (Status s = emit(rc); !s.ok()) return s;
    }
    if (finish) {
      size_t rc = LZ4F_compressEnd(ctx_, buf_.data(), buf_.size(), nullptr);
      if (LZ4F_isError(rc)) return ErrorStatus(std::string("lz4: ") + LZ4F_getErrorName(rc));
      return emit(rc);
    }
    return Status::Ok();
  }

 private:
  LZ4F_cctx* ctx_ = nullptr;
  bool begun_ = false;
  std::string buf_;
};

class Lz4Decoder : public SyncDecoder {
 public:
  Lz4Decoder() : buf_(kBlock, '\0') { LZ4F_createDecompressionContext(&ctx_, LZ4F_VERSION); }
  ~Lz4Decoder() override { LZ4F_freeDecompressionContext(ctx_); }
  Status Decode(std::string_view data, const ChunkSink& out) override {
    size_t at = 0;
    while (at < data.size() || full_) {
      if (done_) {  // the frame ended: nothing may follow it
        if (at < data.size()) return ErrorStatus("lz4: data after the end of the stream");
        break;
      }
      size_t out_size = buf_.size(), in_size = data.size() - at;
      size_t rc =
          LZ4F_decompress(ctx_, buf_.data(), &out_size, data.data() + at, &in_size, nullptr);
      if (LZ4F_isError(rc)) return ErrorStatus(std::string("lz4: ") + LZ4F_getErrorName(rc));
      at += in_size;
      done_ = rc == 0;
      full_ = out_size == buf_.size();
      if (out_size > 0) {
        if (Status s = out(std::string_view(buf_.data(), out_size)); !s.ok()) return s;
      }
    }
    return Status::Ok();
  }
  Status Finish() override {
    return done_ ? Status::Ok() : ErrorStatus("lz4: compressed stream ended early");
  }

 private:
  LZ4F_dctx* ctx_ = nullptr;
  std::string buf_;
  bool done_ = false, full_ = false;
};
#endif  // FATHOM_ADB_HAVE_LZ4

#ifdef FATHOM_ADB_HAVE_BROTLI
class BrotliEncoder : public SyncEncoder {
 public:
  BrotliEncoder()
      : state_(BrotliEncoderCreateInstance(nullptr, nullptr, nullptr)), buf_(kBlock, '\0') {
    BrotliEncoderSetParameter(state_, BROTLI_PARAM_QUALITY, 1);
  }
  ~BrotliEncoder() override { BrotliEncoderDestroyInstance(state_); }
  Status Encode(std::string_view data, bool finish, const ChunkSink& out) override {
    size_t avail_in = data.size();
    auto* next_in = reinterpret_cast<const uint8_t*>(data.data());
    while (true) {
      size_t avail_out = buf_.size();
      auto* next_out = reinterpret_cast<uint8_t*>(buf_.data());
      if (!BrotliEncoderCompressStream(state_,
                                       finish ? BROTLI_OPERATION_FINISH : BROTLI_OPERATION_PROCESS,
                                       &avail_in, &next_in, &avail_out, &next_out, nullptr)) {
        return ErrorStatus("brotli: compression failed");
      }
      if (const size_t n = buf_.size() - avail_out; n > 0) {
        if (Status s = out(std::string_view(buf_.data(), n)); !s.ok()) return s;
      }
      if (avail_in == 0 && !BrotliEncoderHasMoreOutput(state_) &&
          (!finish || BrotliEncoderIsFinished(state_))) {
        return Status::Ok();
      }
    }
  }

 private:
  BrotliEncoderState* state_;
  std::string buf_;
};

class BrotliDecoder : public SyncDecoder {
 public:
  BrotliDecoder()
      : state_(BrotliDecoderCreateInstance(nullptr, nullptr, nullptr)), buf_(kBlock, '\0') {}
  ~BrotliDecoder() override { BrotliDecoderDestroyInstance(state_); }
  Status Decode(std::string_view data, const ChunkSink& out) override {
    size_t avail_in = data.size();
    auto* next_in = reinterpret_cast<const uint8_t*>(data.data());
    while (true) {
      if (done_ && avail_in > 0) {
        return ErrorStatus("brotli: data after the end of the compressed stream");
      }
      size_t avail_out = buf_.size();
      auto* next_out = reinterpret_cast<uint8_t*>(buf_.data());
      BrotliDecoderResult r = BrotliDecoderDecompressStream(state_, &avail_in, &next_in, &avail_out,
                                                            &next_out, nullptr);
      if (r == BROTLI_DECODER_RESULT_ERROR) {
        return ErrorStatus(std::string("brotli: ") +
                           BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state_)));
      }
      if (const size_t n = buf_.size() - avail_out; n > 0) {
        if (Status s = out(std::string_view(buf_.data(), n)); !s.ok()) return s;
      }
      if (r == BROTLI_DECODER_RESULT_SUCCESS) done_ = true;
      if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) continue;
      if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT || avail_in == 0) return Status::Ok();
    }
  }
  Status Finish() override {
    return done_ ? Status::Ok() : ErrorStatus("brotli: compressed stream ended early");
  }

 private:
  BrotliDecoderState* state_;
  std::string buf_;
  bool done_ = false;
};
#endif  // FATHOM_ADB_HAVE_BROTLI

Status NotBuilt(SyncCompression c) {
  return ErrorStatus(std::string("adb sync: this build has no ") + SyncCompressionName(c) +
                     " support");
}

}  // namespace

const char* SyncCompressionName(SyncCompression c) {
  switch (c) {
    case SyncCompression::kBrotli:
      return "brotli";
    case SyncCompression::kLz4:
      return "lz4";
    case SyncCompression::kZstd:
      return "zstd";
    case SyncCompression::kNone:
      break;
  }
  return "none";
}

std::optional<SyncCompression> ParseSyncCompression(std::string_view name) {
  for (SyncCompression c : {SyncCompression::kNone, SyncCompression::kBrotli, SyncCompression::kLz4,
                            SyncCompression::kZstd}) {
    if (name == SyncCompressionName(c)) return c;
  }
  return std::nullopt;
}

bool SyncCompressionBuilt(SyncCompression c) {
  switch (c) {
    case SyncCompression::kNone:
      return true;
    case SyncCompression::kBrotli:
#ifdef FATHOM_ADB_HAVE_BROTLI
      return true;
#else
      return false;
#endif
    case SyncCompression::kLz4:
#ifdef FATHOM_ADB_HAVE_LZ4
      return true;
#else
      return false;
#endif
    case SyncCompression::kZstd:
#ifdef FATHOM_ADB_HAVE_ZSTD
      return true;
#else
      return false;
#endif
  }
  return false;
}

std::vector<SyncCompression> BuiltSyncCompressions() {
  std::vector<SyncCompression> out;
  for (SyncCompression c :
       {SyncCompression::kZstd, SyncCompression::kLz4, SyncCompression::kBrotli}) {
    if (SyncCompressionBuilt(c)) out.push_back(c);
  }
  return out;
}

std::string SyncCompressionFeature(SyncCompression c) {
  return c == SyncCompression::kNone ? "" : std::string("sendrecv_v2_") + SyncCompressionName(c);
}

Result<std::unique_ptr<SyncEncoder>> MakeSyncEncoder(SyncCompression c) {
  switch (c) {
    case SyncCompression::kNone:
      return std::unique_ptr<SyncEncoder>(new NullEncoder());
#ifdef FATHOM_ADB_HAVE_ZSTD
    case SyncCompression::kZstd:
      return std::unique_ptr<SyncEncoder>(new ZstdEncoder());
#endif
#ifdef FATHOM_ADB_HAVE_LZ4
    case SyncCompression::kLz4:
      return std::unique_ptr<SyncEncoder>(new Lz4Encoder());
#endif
#ifdef FATHOM_ADB_HAVE_BROTLI
    case SyncCompression::kBrotli:
      return std::unique_ptr<SyncEncoder>(new BrotliEncoder());
#endif
    default:
      break;
  }
  return NotBuilt(c);
}

Result<std::unique_ptr<SyncDecoder>> MakeSyncDecoder(SyncCompression c) {
  switch (c) {
    case SyncCompression::kNone:
      return std::unique_ptr<SyncDecoder>(new NullDecoder());
#ifdef FATHOM_ADB_HAVE_ZSTD
    case SyncCompression::kZstd:
      return std::unique_ptr<SyncDecoder>(new ZstdDecoder());
#endif
#ifdef FATHOM_ADB_HAVE_LZ4
    case SyncCompression::kLz4:
      return std::unique_ptr<SyncDecoder>(new Lz4Decoder());
#endif
#ifdef FATHOM_ADB_HAVE_BROTLI
    case SyncCompression::kBrotli:
      return std::unique_ptr<SyncDecoder>(new BrotliDecoder());
#endif
    default:
      break;
  }
  return NotBuilt(c);
}

}  // namespace fathom::adb
