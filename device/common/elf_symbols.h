// Function names and build ids from an ELF file's own tables (.symtab, else .dynsym;
// .note.gnu.build-id), read once per file by the collector for online symbolization.
// A stripped file (no .symtab) takes its names from its separate debug file when one
// with the same build id is installed: DEBUG_DIR/.build-id/xx/yyyy.debug, where Debian's
// -dbgsym packages put them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fathom::device {

class ElfSymbols {
 public:
  static constexpr const char* kDefaultDebugDir = "/usr/lib/debug";
  // Reads `path`; on any failure the object is empty (names unknown, no build id).
  // `debug_dir`: where to look for a stripped file's debug file ("" = nowhere).
  explicit ElfSymbols(const std::string& path, const std::string& debug_dir = kDefaultDebugDir);

  bool valid() const { return valid_; }
  const std::string& build_id() const { return build_id_; }  // raw bytes
  // Virtual address of a file offset (through the PT_LOAD that maps it).
  uint64_t FileOffsetToVaddr(uint64_t offset) const;
  // p_vaddr - p_offset of the first executable segment.
  uint64_t load_bias() const { return load_bias_; }
  // Demangled name of the function containing `vaddr`, or "" when no symbol covers it.
  std::string Lookup(uint64_t vaddr) const;

 private:
  struct Sym {
    uint64_t start, size;
    uint32_t name;  // offset into names_
    uint8_t rank;   // among aliases of one address the highest names it: global, weak, local
  };
  struct Load {
    uint64_t offset, vaddr, filesz;
  };
  bool valid_ = false;
  std::string build_id_;
  uint64_t load_bias_ = 0;
  std::vector<Load> loads_;
  std::vector<Sym> syms_;  // sorted by start
  std::string names_;
};

}  // namespace fathom::device
