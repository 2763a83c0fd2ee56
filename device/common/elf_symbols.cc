#include "elf_symbols.h"

#include <cxxabi.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace fathom::device {

ElfSymbols::ElfSymbols(const std::string& path, const std::string& debug_dir) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(sizeof(Elf64_Ehdr))) {
    close(fd);
    return;
  }
  size_t size = static_cast<size_t>(st.st_size);
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return;
  const uint8_t* base = static_cast<const uint8_t*>(map);
  auto in_file = [&](uint64_t off, uint64_t len) { return off <= size && len <= size - off; };
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(base);
  // 64-bit little-endian only (x86_64, arm64): what we run on.
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      !in_file(eh->e_phoff, uint64_t{eh->e_phnum} * sizeof(Elf64_Phdr)) ||
      !in_file(eh->e_shoff, uint64_t{eh->e_shnum} * sizeof(Elf64_Shdr))) {
    munmap(map, size);
    return;
  }
  valid_ = true;
  const auto* ph = reinterpret_cast<const Elf64_Phdr*>(base + eh->e_phoff);
  bool have_bias = false;
  for (int i = 0; i < eh->e_phnum; i++) {
    if (ph[i].p_type == PT_LOAD) {
      loads_.push_back({ph[i].p_offset, ph[i].p_vaddr, ph[i].p_filesz});
      if ((ph[i].p_flags & PF_X) && !have_bias) {
        load_bias_ = ph[i].p_vaddr - ph[i].p_offset;
        have_bias = true;
      }
    } else if (ph[i].p_type == PT_NOTE && in_file(ph[i].p_offset, ph[i].p_filesz)) {
      // Notes: namesz, descsz, type, name (4-aligned), desc (4-aligned).
      uint64_t off = ph[i].p_offset, end = off + ph[i].p_filesz;
      while (off + 12 <= end) {
        const auto* n = reinterpret_cast<const Elf64_Nhdr*>(base + off);
        uint64_t name_off = off + 12, desc_off = name_off + ((n->n_namesz + 3) & ~3u);
        uint64_t next = desc_off + ((n->n_descsz + 3) & ~3u);
        if (next > end) break;
        if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
            memcmp(base + name_off, "GNU", 4) == 0)
          build_id_.assign(reinterpret_cast<const char*>(base + desc_off), n->n_descsz);
        off = next;
      }
    }
  }
  const auto* sh = reinterpret_cast<const Elf64_Shdr*>(base + eh->e_shoff);
  bool full_table = false;  // names from .symtab, not only the exported ones of .dynsym
  for (uint32_t want : {uint32_t{SHT_SYMTAB}, uint32_t{SHT_DYNSYM}}) {
    for (int i = 0; i < eh->e_shnum && syms_.empty(); i++) {
      if (sh[i].sh_type != want || sh[i].sh_link >= eh->e_shnum) continue;
      const Elf64_Shdr& strtab = sh[sh[i].sh_link];
      if (!in_file(sh[i].sh_offset, sh[i].sh_size) || !in_file(strtab.sh_offset, strtab.sh_size))
        continue;
      const auto* sym = reinterpret_cast<const Elf64_Sym*>(base + sh[i].sh_offset);
      size_t count = sh[i].sh_size / sizeof(Elf64_Sym);
      for (size_t k = 0; k < count; k++) {
        if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC || sym[k].st_value == 0 ||
            sym[k].st_name >= strtab.sh_size)
          continue;
        const char* name = reinterpret_cast<const char*>(base + strtab.sh_offset + sym[k].st_name);
        size_t len = strnlen(name, strtab.sh_size - sym[k].st_name);
        uint8_t bind = ELF64_ST_BIND(sym[k].st_info);
        uint8_t rank = bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0;
        syms_.push_back(
            {sym[k].st_value, sym[k].st_size, static_cast<uint32_t>(names_.size()), rank});
        // A .symtab names versioned definitions "name@@VERSION": the name is what callers see.
        const char* at = static_cast<const char*>(memchr(name, '@', len));
        names_.append(name, at ? static_cast<size_t>(at - name) : len);
        names_.push_back('\0');
      }
    }
    if (want == SHT_SYMTAB && !syms_.empty()) full_table = true;
  }
  // Aliases (a debug file's .symtab has libc's __GI_* and *_impl beside the exported
  // names): the exported one sorts last, where Lookup's walk back meets it first.
  std::sort(syms_.begin(), syms_.end(), [](const Sym& a, const Sym& b) {
    return a.start != b.start ? a.start < b.start : a.rank < b.rank;
  });
  munmap(map, size);
  if (!full_table && !debug_dir.empty() && build_id_.size() > 1) {
    // A debug file keeps the binary's addresses: its .symtab serves as is.
    static const char kHex[] = "0123456789abcdef";
    std::string hex;
    for (unsigned char c : build_id_) {
      hex += kHex[c >> 4];
      hex += kHex[c & 15];
    }
    ElfSymbols debug(debug_dir + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug",
                     "");
    if (debug.valid_ && debug.build_id_ == build_id_ && !debug.syms_.empty()) {
      syms_.swap(debug.syms_);
      names_.swap(debug.names_);
    }
  }
}

uint64_t ElfSymbols::FileOffsetToVaddr(uint64_t offset) const {
  for (const Load& l : loads_)
    if (offset >= l.offset && offset < l.offset + l.filesz) return offset - l.offset + l.vaddr;
  return offset + load_bias_;
}

std::string ElfSymbols::Lookup(uint64_t vaddr) const {
  auto it = std::upper_bound(syms_.begin(), syms_.end(), vaddr,
                             [](uint64_t v, const Sym& s) { return v < s.start; });
  // Walk back over aliases/zero-size entries to one whose extent covers vaddr.
  for (int tries = 0; it != syms_.begin() && tries < 4; tries++) {
    --it;
    if (vaddr < it->start + std::max<uint64_t>(it->size, 1)) {
      const char* mangled = names_.c_str() + it->name;
      int status = 0;
      char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
      std::string out = status == 0 && demangled ? demangled : mangled;
      free(demangled);
      return out;
    }
  }
  return "";
}

}  // namespace fathom::device
