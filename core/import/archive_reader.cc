#include "core/import/archive_reader.h"

#include <zlib.h>

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

Result<std::vector<ArchiveMember>> ExtractZip(const uint8_t* data, size_t size,
                                              std::vector<ArchiveMember>* partial) {
  std::vector<ArchiveMember> members;
  auto fail = [&](std::string msg) -> Result<std::vector<ArchiveMember>> {
    if (partial) *partial = std::move(members);
    return ErrorStatus("zip: " + msg);
  };
  // Walk the local headers front to back: this still finds every member
  // before the damage when the central directory at the end is cut off.
  size_t off = 0;
  while (off + 4 <= size) {
    uint32_t sig = Le32(data + off);
    if (sig == 0x02014b50 || sig == 0x06054b50) break;  // central directory: done
    if (sig != 0x04034b50) return fail(At(off) + "expected a local file header");
    if (off + 30 > size) return fail(At(off) + "local file header cut short");
    const uint8_t* h = data + off;
    uint32_t flags = Le16(h + 6), method = Le16(h + 8);
    uint64_t csize = Le32(h + 18), usize = Le32(h + 22);
    uint32_t nlen = Le16(h + 26), xlen = Le16(h + 28);
    if (off + 30 + nlen + xlen > size) return fail(At(off) + "member name cut short");
    std::string name(reinterpret_cast<const char*>(h + 30), nlen);
    if (csize == 0xFFFFFFFFu || usize == 0xFFFFFFFFu)
      return fail(At(off) + name + ": zip64 members are not supported");
    size_t body = off + 30 + nlen + xlen;
    if (flags & 0x8) {
      // Sizes follow the data (streamed zip): take them from the central
      // directory entry with the same local header offset.
      bool found = false;
      for (size_t c = size >= 22 ? size - 22 : 0; c + 4 <= size && !found; --c) {
        if (Le32(data + c) == 0x06054b50 && c + 22 <= size) {
          size_t cd = Le32(data + c + 16);
          uint32_t n = Le16(data + c + 10);
          for (uint32_t k = 0; k < n && cd + 46 <= size; ++k) {
            if (Le32(data + cd) != 0x02014b50) break;
            if (Le32(data + cd + 42) == off) {
              csize = Le32(data + cd + 20);
              usize = Le32(data + cd + 24);
              found = true;
              break;
            }
            cd += 46 + Le16(data + cd + 28) + Le16(data + cd + 30) + Le16(data + cd + 32);
          }
        }
        if (c == 0) break;
      }
      if (!found) return fail(At(off) + name + ": sizes unknown (no central directory)");
    }
    if (body + csize > size) return fail(At(body) + name + ": member data cut short");
    ArchiveMember m;
    m.name = name;
    if (!name.empty() && name.back() != '/' && csize > 0) {
      if (method == 0) {
        m.data.assign(data + body, data + body + csize);
      } else if (method == 8) {
        Status st = InflateRaw(data + body, csize, usize, &m.data);
        if (!st.ok()) return fail(At(body) + name + ": " + st.message());
      } else {
        return fail(At(off) + name + ": compression method " + std::to_string(method) +
                    " is not supported (only stored and deflate)");
      }
      members.push_back(std::move(m));
    }
    off = body + csize;
    if (flags & 0x8) {  // skip the data descriptor (optional signature)
      if (off + 4 <= size && Le32(data + off) == 0x08074b50) off += 4;
      off += 12;
    }
  }
  return members;
}

Result<std::vector<ArchiveMember>> ExtractTar(const uint8_t* data, size_t size,
                                              std::vector<ArchiveMember>* partial) {
  std::vector<ArchiveMember> members;
  auto fail = [&](std::string msg) -> Result<std::vector<ArchiveMember>> {
    if (partial) *partial = std::move(members);
    return ErrorStatus("tar: " + msg);
  };
  size_t off = 0;
  std::string long_name;
  while (off + 512 <= size) {
    const uint8_t* h = data + off;
    bool zero = true;
    for (int i = 0; i < 512 && zero; ++i) zero = h[i] == 0;
    if (zero) break;  // end-of-archive marker
    uint64_t len = 0;
    for (int i = 124; i < 136 && h[i]; ++i) {
      if (h[i] == ' ') continue;
      if (h[i] < '0' || h[i] > '7') return fail(At(off + 124) + "bad size field in header");
      len = len * 8 + (h[i] - '0');
    }
    char type = static_cast<char>(h[156]);
    std::string name(reinterpret_cast<const char*>(h),
                     strnlen(reinterpret_cast<const char*>(h), 100));
    if (memcmp(h + 257, "ustar", 5) == 0 && h[345]) {
      std::string prefix(reinterpret_cast<const char*>(h + 345),
                         strnlen(reinterpret_cast<const char*>(h + 345), 155));
      name = prefix + "/" + name;
    }
    size_t body = off + 512;
    if (body + len > size) return fail(At(body) + name + ": member data cut short");
    if (type == 'L') {  // GNU long name for the next member
      long_name.assign(reinterpret_cast<const char*>(data + body),
                       strnlen(reinterpret_cast<const char*>(data + body), len));
    } else if (type == '0' || type == '\0' || type == '7') {
      if (!long_name.empty()) name = std::move(long_name), long_name.clear();
      if (len > 0) members.push_back({name, std::vector<uint8_t>(data + body, data + body + len)});
    }  // pax headers, links, directories: nothing to load
    off = body + (len + 511) / 512 * 512;
  }
  if (off < size && off + 512 > size && members.empty()) return fail(At(off) + "header cut short");
  return members;
}

}  // namespace fathom
