#include "core/symbols/elf_build_id.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace fathom::symbols {
namespace {

struct FileCloser {
  void operator()(FILE* f) const { fclose(f); }
};
using File = std::unique_ptr<FILE, FileCloser>;

// Reads `size` bytes at `offset`; false on a short read.
bool ReadAt(FILE* f, uint64_t offset, void* out, size_t size) {
  if (fseek(f, static_cast<long>(offset), SEEK_SET) != 0) return false;
  return fread(out, 1, size, f) == size;
}

class Reader {
 public:
  explicit Reader(bool big_endian) : big_(big_endian) {}
  uint64_t U(const uint8_t* p, size_t n) const {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t{p[big_ ? n - 1 - i : i]} << (8 * i);
    return v;
  }

 private:
  bool big_;
};

constexpr uint32_t kShtNote = 7;
constexpr uint32_t kPtNote = 4;
constexpr uint32_t kNtGnuBuildId = 3;

// Walks the notes in [off, off+size) for the GNU build id.
bool FindInNotes(FILE* f, const Reader& r, uint64_t off, uint64_t size, std::string* out) {
  if (size > (64u << 20)) return false;  // a note area this big is not a note area
  std::vector<uint8_t> buf(size);
  if (size == 0 || !ReadAt(f, off, buf.data(), size)) return false;
  uint64_t pos = 0;
  while (pos + 12 <= size) {
    uint64_t namesz = r.U(&buf[pos], 4), descsz = r.U(&buf[pos + 4], 4);
    uint64_t type = r.U(&buf[pos + 8], 4);
    uint64_t name_off = pos + 12, desc_off = name_off + ((namesz + 3) & ~uint64_t{3});
    uint64_t next = desc_off + ((descsz + 3) & ~uint64_t{3});
    if (desc_off + descsz > size) return false;
    if (type == kNtGnuBuildId && namesz == 4 && memcmp(&buf[name_off], "GNU", 4) == 0) {
      out->assign(reinterpret_cast<const char*>(&buf[desc_off]), descsz);
      return true;
    }
    pos = next;
  }
  return false;
}

}  // namespace

bool LooksLikeElf(const std::string& path) {
  File f(fopen(path.c_str(), "rb"));
  uint8_t magic[4];
  return f && fread(magic, 1, 4, f.get()) == 4 &&
         memcmp(magic,
                "\x7f"
                "ELF",
                4) == 0;
}

Result<std::string> ReadElfBuildId(const std::string& path) {
  File f(fopen(path.c_str(), "rb"));
  if (!f) return ErrorStatus(path + ": cannot open: " + strerror(errno));
  uint8_t eh[64];
  size_t got = fread(eh, 1, sizeof eh, f.get());
  if (got < 52 || memcmp(eh,
                         "\x7f"
                         "ELF",
                         4) != 0)
    return ErrorStatus(path + ": offset 0: not an ELF file");
  bool is64 = eh[4] == 2;
  if ((eh[4] != 1 && eh[4] != 2) || (eh[5] != 1 && eh[5] != 2))
    return ErrorStatus(path + ": offset 4: unknown ELF class/byte order");
  if (is64 && got < 64) return ErrorStatus(path + ": offset 0: truncated ELF header");
  Reader r(eh[5] == 2);
  uint64_t phoff = is64 ? r.U(eh + 32, 8) : r.U(eh + 28, 4);
  uint64_t shoff = is64 ? r.U(eh + 40, 8) : r.U(eh + 32, 4);
  uint64_t phentsize = r.U(eh + (is64 ? 54 : 42), 2), phnum = r.U(eh + (is64 ? 56 : 44), 2);
  uint64_t shentsize = r.U(eh + (is64 ? 58 : 46), 2), shnum = r.U(eh + (is64 ? 60 : 48), 2);
  std::string id;
  // Section headers first (present in every unstripped or debug file; a
  // separate .debug file has no loadable note segment), then program headers
  // (a file whose section table was stripped away still has PT_NOTE).
  uint8_t h[64];
  for (uint64_t i = 0; i < shnum && shentsize >= (is64 ? 64u : 40u); ++i) {
    if (!ReadAt(f.get(), shoff + i * shentsize, h, is64 ? 64 : 40))
      return ErrorStatus(path + ": offset " + std::to_string(shoff + i * shentsize) +
                         ": truncated section header");
    if (r.U(h + 4, 4) != kShtNote) continue;
    uint64_t off = is64 ? r.U(h + 24, 8) : r.U(h + 16, 4);
    uint64_t size = is64 ? r.U(h + 32, 8) : r.U(h + 20, 4);
    if (FindInNotes(f.get(), r, off, size, &id)) return id;
  }
  for (uint64_t i = 0; i < phnum && phentsize >= (is64 ? 56u : 32u); ++i) {
    if (!ReadAt(f.get(), phoff + i * phentsize, h, is64 ? 56 : 32))
      return ErrorStatus(path + ": offset " + std::to_string(phoff + i * phentsize) +
                         ": truncated program header");
    if (r.U(h, 4) != kPtNote) continue;
    uint64_t off = is64 ? r.U(h + 8, 8) : r.U(h + 4, 4);
    uint64_t size = is64 ? r.U(h + 32, 8) : r.U(h + 16, 4);
    if (FindInNotes(f.get(), r, off, size, &id)) return id;
  }
  return ErrorStatus(path + ": no GNU build-id note");
}

std::string BuildIdToHex(const std::string& raw) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

std::string BuildIdFromHex(const std::string& hex) {
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (hex.empty() || hex.size() % 2) return {};
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) return {};
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

}  // namespace fathom::symbols
