#include "core/import/archive_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

namespace fathom {
namespace {

uint32_t Le16(const uint8_t* p) { return p[0] | (p[1] << 8); }
uint32_t Le32(const uint8_t* p) {
  return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

std::string At(uint64_t off) { return "byte offset " + std::to_string(off) + ": "; }

}  // namespace

Status InflateRaw(const uint8_t* data, size_t size, size_t expected, std::vector<uint8_t>* out) {
  z_stream zs{};
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) return ErrorStatus("zlib init failed");
  size_t base = out->size();
  out->resize(base + (expected ? expected : size * 4 + 1024));
  zs.next_in = const_cast<Bytef*>(data);
  zs.avail_in = static_cast<uInt>(size);
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (zs.total_out + base == out->size()) out->resize(out->size() * 2);
    zs.next_out = out->data() + base + zs.total_out;
    zs.avail_out = static_cast<uInt>(out->size() - base - zs.total_out);
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      std::string msg = zs.msg ? zs.msg : "data error";
      size_t done = zs.total_in;
      inflateEnd(&zs);
      out->resize(base);
      return ErrorStatus("deflate data damaged after " + std::to_string(done) + " bytes: " + msg);
    }
    if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) {
      inflateEnd(&zs);
      out->resize(base);
      return ErrorStatus("deflate data cut short");
    }
  }
  out->resize(base + zs.total_out);
  inflateEnd(&zs);
  return Status::Ok();
}

namespace {
constexpr size_t kFillChunk = 1 << 20;
constexpr uint32_t kLocalHeader = 0x04034b50, kCentralHeader = 0x02014b50, kEndRecord = 0x06054b50,
                   kZip64EndRecord = 0x06064b50, kZip64Locator = 0x07064b50,
                   kDataDescriptor = 0x08074b50;
uint64_t Le64(const uint8_t* p) { return Le32(p) | (static_cast<uint64_t>(Le32(p + 4)) << 32); }
}  // namespace

class ArchiveStream::MemberReader : public ChunkReader {
 public:
  explicit MemberReader(ArchiveStream* a) : a_(a) {}
  Result<size_t> Read(uint8_t* dst, size_t cap) override { return a_->ReadMember(dst, cap); }
  uint64_t file_offset() const override { return a_->in_->file_offset(); }
  uint64_t file_size() const override { return a_->in_->file_size(); }

 private:
  ArchiveStream* a_;
};

ArchiveStream::ArchiveStream(Kind kind, ChunkReader* in, const uint8_t* head, size_t head_size)
    : kind_(kind), in_(in), member_(new MemberReader(this)), buf_(head, head + head_size) {}

ChunkReader* ArchiveStream::member() { return member_.get(); }

ArchiveStream::~ArchiveStream() {
  if (zs_init_) inflateEnd(&zs_);
}

Status ArchiveStream::Fail(uint64_t offset, const std::string& msg) {
  failed_ = true;
  in_member_ = false;
  return ErrorStatus(std::string(kind_ == Kind::kZip ? "zip: " : "tar: ") + At(offset) + msg);
}

Status ArchiveStream::Fill(size_t want) {
  if (available() >= want || eof_) return Status::Ok();
  buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(buf_pos_));
  buf_pos_ = 0;
  // One resize (a zero-fill) per refill, and the space read full: a reader
  // that hands out small pieces (a member of a member) once cost a 1 MiB
  // zero-fill per piece.
  size_t have = buf_.size();
  buf_.resize(std::max(have + kFillChunk, want));
  while (have < buf_.size() && !eof_) {
    auto got = in_->Read(buf_.data() + have, buf_.size() - have);
    if (!got.ok()) {
      buf_.resize(have);
      return Fail(pos_ + have, got.status().message());
    }
    if (*got == 0) eof_ = true;
    have += *got;
  }
  buf_.resize(have);
  return Status::Ok();
}

Status ArchiveStream::SkipRemaining() {
  while (remaining_ > 0) {
    if (Status st = Fill(1); !st.ok()) return st;
    if (available() == 0) return Fail(pos_, name_ + ": member data cut short");
    size_t n = static_cast<size_t>(std::min<uint64_t>(remaining_, available()));
    Consume(n);
    remaining_ -= n;
  }
  return Status::Ok();
}

Status ArchiveStream::SkipRest() {
  std::vector<uint8_t> sink;
  while (in_member_) {
    if (!deflate_) {  // stored/tar: skip without copying
      if (Status st = SkipRemaining(); !st.ok()) return st;
    }
    sink.resize(64 << 10);
    auto n = ReadMember(sink.data(), sink.size());
    if (!n.ok()) return n.status();
  }
  return Status::Ok();
}

Result<bool> ArchiveStream::NextMember() {
  if (failed_) return false;
  // Skip what the loader did not read of the current member.
  if (Status st = SkipRest(); !st.ok()) return st;
  auto more = kind_ == Kind::kZip ? NextZipMember() : NextTarMember();
  if (more.ok() && *more) any_member_ = true;
  return more;
}

Result<bool> ArchiveStream::NextZipMember() {
  while (true) {
    if (Status st = Fill(30); !st.ok()) return st;
    if (available() < 4) return false;  // no central directory: still every member
    uint32_t sig = Le32(peek());
    // The central directory and the end records (zip64 too) follow the last
    // member: the stream is done.
    if (sig == kCentralHeader || sig == kEndRecord || sig == kZip64EndRecord ||
        sig == kZip64Locator)
      return false;
    uint64_t off = pos_;
    if (sig != kLocalHeader) return Fail(off, "expected a local file header");
    if (available() < 30) return Fail(off, "local file header cut short");
    const uint8_t* h = peek();
    uint32_t flags = Le16(h + 6), method = Le16(h + 8);
    uint64_t csize = Le32(h + 18), usize = Le32(h + 22);
    uint32_t nlen = Le16(h + 26), xlen = Le16(h + 28);
    if (Status st = Fill(30 + nlen + xlen); !st.ok()) return st;
    if (available() < 30 + nlen + xlen) return Fail(off, "member name cut short");
    h = peek();
    std::string name(reinterpret_cast<const char*>(h + 30), nlen);
    // Zip64: 0xFFFFFFFF sizes live in the 0x0001 extra field (uncompressed
    // size first; a local header carries both).
    zip64_ = false;
    for (uint32_t x = 0; x + 4 <= xlen;) {
      const uint8_t* e = h + 30 + nlen + x;
      uint32_t id = Le16(e), len = Le16(e + 2);
      if (x + 4 + len > xlen) break;
      if (id == 0x0001) {
        zip64_ = true;
        const uint8_t* f = e + 4;
        uint32_t left = len;
        bool both = len >= 16;
        if ((both || usize == 0xFFFFFFFFu) && left >= 8) usize = Le64(f), f += 8, left -= 8;
        if ((both || csize == 0xFFFFFFFFu) && left >= 8) csize = Le64(f), f += 8, left -= 8;
      }
      x += 4 + len;
    }
    if (!zip64_ && (csize == 0xFFFFFFFFu || usize == 0xFFFFFFFFu))
      return Fail(off, name + ": zip64 sizes without a zip64 extra field");
    Consume(30 + nlen + xlen);
    name_ = name;
    data_offset_ = pos_;
    sizes_follow_ = flags & 0x8;
    if (method != 0 && method != 8)
      return Fail(off, name + ": compression method " + std::to_string(method) +
                           " is not supported (only stored and deflate)");
    if (method == 0 && sizes_follow_)
      return Fail(off, name +
                           ": a stored member whose sizes follow its data cannot be read "
                           "front to back");
    deflate_ = method == 8;
    remaining_ = csize;
    in_member_ = true;
    if (deflate_) {
      if (zs_init_) inflateEnd(&zs_);
      zs_ = z_stream{};
      if (inflateInit2(&zs_, -MAX_WBITS) != Z_OK) return Fail(off, "zlib init failed");
      zs_init_ = true;
    }
    bool is_file = !name.empty() && name.back() != '/' && (sizes_follow_ || csize > 0);
    if (is_file) return true;
    // A directory or an empty file: skip it and look at the next header.
    if (Status st = SkipRest(); !st.ok()) return st;
  }
}

Result<bool> ArchiveStream::NextTarMember() {
  std::string long_name;
  while (true) {
    if (Status st = Fill(512); !st.ok()) return st;
    if (available() == 0) return false;
    uint64_t off = pos_;
    if (available() < 512) {
      // Trailing bytes after whole members are ignored, as tar does.
      if (any_member_) return false;
      return Fail(off, "header cut short");
    }
    const uint8_t* h = peek();
    bool zero = true;
    for (int i = 0; i < 512 && zero; ++i) zero = h[i] == 0;
    if (zero) return false;  // end-of-archive marker
    uint64_t len = 0;
    for (int i = 124; i < 136 && h[i]; ++i) {
      if (h[i] == ' ') continue;
      if (h[i] < '0' || h[i] > '7') return Fail(off + 124, "bad size field in header");
      len = len * 8 + static_cast<uint64_t>(h[i] - '0');
    }
    char type = static_cast<char>(h[156]);
    std::string name(reinterpret_cast<const char*>(h),
                     strnlen(reinterpret_cast<const char*>(h), 100));
    if (memcmp(h + 257, "ustar", 5) == 0 && h[345]) {
      std::string prefix(reinterpret_cast<const char*>(h + 345),
                         strnlen(reinterpret_cast<const char*>(h + 345), 155));
      name = prefix + "/" + name;
    }
    Consume(512);
    uint64_t padded = (len + 511) / 512 * 512;
    if (type == 'L' && len < (1 << 20)) {  // GNU long name for the next member
      size_t n = static_cast<size_t>(len);
      if (Status st = Fill(n); !st.ok()) return st;
      if (available() < n) return Fail(pos_, name + ": member data cut short");
      long_name.assign(reinterpret_cast<const char*>(peek()),
                       strnlen(reinterpret_cast<const char*>(peek()), n));
    } else if ((type == '0' || type == '\0' || type == '7') && len > 0) {
      if (!long_name.empty()) name = std::move(long_name);
      name_ = name;
      data_offset_ = pos_;
      deflate_ = sizes_follow_ = false;
      remaining_ = len;
      padding_ = padded - len;
      in_member_ = true;
      return true;
    }
    // Pax headers, links, directories, long names: skip their data.
    for (uint64_t left = padded; left > 0;) {
      if (Status st = Fill(1); !st.ok()) return st;
      if (available() == 0) return Fail(pos_, name + ": member data cut short");
      size_t n = static_cast<size_t>(std::min<uint64_t>(left, available()));
      Consume(n);
      left -= n;
    }
  }
}

Result<size_t> ArchiveStream::ReadMember(uint8_t* dst, size_t cap) {
  if (!in_member_) return size_t{0};
  if (!deflate_) {
    size_t done = 0;
    while (done < cap && remaining_ > 0) {
      if (Status st = Fill(1); !st.ok()) return st;
      if (available() == 0) return Fail(pos_, name_ + ": member data cut short");
      size_t n = static_cast<size_t>(std::min<uint64_t>({remaining_, available(), cap - done}));
      memcpy(dst + done, peek(), n);
      Consume(n);
      remaining_ -= n;
      done += n;
    }
    if (remaining_ == 0) {
      // tar: the zero padding to the next 512-byte block.
      while (padding_ > 0) {
        if (Status st = Fill(1); !st.ok()) return st;
        if (available() == 0) break;  // a cut after the data: the next header reports it
        size_t n = static_cast<size_t>(std::min<uint64_t>(padding_, available()));
        Consume(n);
        padding_ -= n;
      }
      if (done == 0) in_member_ = false;
    }
    return done;
  }
  // Deflate: inflate straight into `dst`, pulling compressed bytes as needed.
  size_t done = 0;
  while (done < cap) {
    if (available() == 0) {
      if (Status st = Fill(1); !st.ok()) return st;
      if (available() == 0) return Fail(pos_, name_ + ": member data cut short");
    }
    size_t in_n = available();
    if (!sizes_follow_) in_n = static_cast<size_t>(std::min<uint64_t>(in_n, remaining_));
    if (in_n == 0) return Fail(pos_, name_ + ": deflate data longer than the member");
    zs_.next_in = const_cast<Bytef*>(peek());
    zs_.avail_in = static_cast<uInt>(std::min<size_t>(in_n, 1u << 30));
    zs_.next_out = dst + done;
    zs_.avail_out = static_cast<uInt>(std::min<size_t>(cap - done, 1u << 30));
    uInt in_before = zs_.avail_in, out_before = zs_.avail_out;
    int rc = inflate(&zs_, Z_NO_FLUSH);
    size_t used = in_before - zs_.avail_in;
    Consume(used);
    if (!sizes_follow_) remaining_ -= used;
    done += out_before - zs_.avail_out;
    if (rc == Z_STREAM_END) {
      inflateEnd(&zs_);
      zs_init_ = false;
      deflate_ = false;  // what is left: nothing to inflate
      // Any compressed bytes the header counted past the stream's end.
      if (!sizes_follow_) {
        if (Status st = SkipRemaining(); !st.ok()) return st;
      } else {
        // Data descriptor: optional signature, crc, then 4- or 8-byte sizes.
        if (Status st = Fill(24); !st.ok()) return st;
        size_t d = available() >= 4 && Le32(peek()) == kDataDescriptor ? 4 : 0;
        d += zip64_ ? 20 : 12;
        if (available() < d) return Fail(pos_, name_ + ": data descriptor cut short");
        Consume(d);
        sizes_follow_ = false;
      }
      remaining_ = 0;
      padding_ = 0;
      if (done == 0) in_member_ = false;
      return done;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      std::string msg = zs_.msg ? zs_.msg : "data error";
      return Fail(pos_, name_ + ": deflate data damaged: " + msg);
    }
    if (used == 0 && out_before == zs_.avail_out)  // no progress with input and room
      return Fail(pos_, name_ + ": deflate data damaged");
  }
  return done;
}

namespace {

Result<std::vector<ArchiveMember>> Extract(ArchiveStream::Kind kind, const uint8_t* data,
                                           size_t size, std::vector<ArchiveMember>* partial) {
  auto reader = MakeMemoryReader(data, size);
  ArchiveStream archive(kind, reader.get(), nullptr, 0);
  std::vector<ArchiveMember> members;
  auto fail = [&](Status st) -> Result<std::vector<ArchiveMember>> {
    if (partial) *partial = std::move(members);
    return st;
  };
  while (true) {
    auto more = archive.NextMember();
    if (!more.ok()) return fail(more.status());
    if (!*more) break;
    ArchiveMember m;
    m.name = archive.name();
    while (true) {
      size_t at = m.data.size();
      m.data.resize(at + (1 << 20));
      auto n = archive.member()->Read(m.data.data() + at, 1 << 20);
      if (!n.ok()) return fail(n.status());
      m.data.resize(at + *n);
      if (*n == 0) break;
    }
    members.push_back(std::move(m));
  }
  return members;
}

}  // namespace

Result<std::vector<ArchiveMember>> ExtractZip(const uint8_t* data, size_t size,
                                              std::vector<ArchiveMember>* partial) {
  return Extract(ArchiveStream::Kind::kZip, data, size, partial);
}

Result<std::vector<ArchiveMember>> ExtractTar(const uint8_t* data, size_t size,
                                              std::vector<ArchiveMember>* partial) {
  return Extract(ArchiveStream::Kind::kTar, data, size, partial);
}

}  // namespace fathom
