// The collector's online symbolization of stripped programs: names from the separate
// debug file that matches the program's build id, as Debian's -dbgsym packages install
// them, and never from a debug file of another build.
#include "device/common/elf_symbols.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace fs = std::filesystem;
using fathom::device::ElfSymbols;

namespace {

int Shell(const std::string& cmd) { return system(cmd.c_str()); }

// The address of `mangled` in `binary`'s own symbol table, by nm (binutils).
uint64_t NmAddress(const std::string& binary, const std::string& mangled) {
  std::string cmd = "nm '" + binary + "'";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return 0;
  char line[1024];
  uint64_t addr = 0;
  while (fgets(line, sizeof line, p)) {
    std::string l(line);
    if (l.size() > mangled.size() + 1 &&
        l.compare(l.size() - mangled.size() - 1, mangled.size(), mangled) == 0)
      addr = strtoull(line, nullptr, 16);
  }
  pclose(p);
  return addr;
}

std::string Hex(const std::string& raw) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

TEST(ElfSymbols, StrippedProgramTakesNamesFromItsDebugFile) {
  char tmpl[] = "/tmp/fathom-elfsyms-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  fs::path dir = tmpl;
  const std::string prog = ACCURACY_PROG;
  const std::string stripped = (dir / "prog").string();
  ASSERT_EQ(Shell("strip -o '" + stripped + "' '" + prog + "'"), 0);

  const uint64_t addr = NmAddress(prog, "_ZN13heapprof_test13AllocateSmallEm");
  ASSERT_NE(addr, 0u);
  const std::string want = "heapprof_test::AllocateSmall(unsigned long)";
  ASSERT_EQ(ElfSymbols(prog, "").Lookup(addr + 1), want);  // the unstripped file names it

  // Stripped, with no debug file: the function is not exported, so it has no name.
  const fs::path debug_dir = dir / "debug";
  ElfSymbols bare(stripped, debug_dir.string());
  ASSERT_TRUE(bare.valid());
  const std::string id = Hex(bare.build_id());
  ASSERT_GT(id.size(), 2u);
  EXPECT_EQ(bare.Lookup(addr + 1), "");

  // A debug file of another build at the build id's place is not used.
  const fs::path debug_file = debug_dir / ".build-id" / id.substr(0, 2) / (id.substr(2) + ".debug");
  fs::create_directories(debug_file.parent_path());
  ASSERT_EQ(Shell("objcopy --only-keep-debug '" + std::string(APIS_PROG) + "' '" +
                  debug_file.string() + "'"),
            0);
  EXPECT_EQ(ElfSymbols(stripped, debug_dir.string()).Lookup(addr + 1), "");

  // The matching debug file names it, at the binary's own addresses.
  ASSERT_EQ(Shell("objcopy --only-keep-debug '" + prog + "' '" + debug_file.string() + "'"), 0);
  ElfSymbols with_debug(stripped, debug_dir.string());
  EXPECT_EQ(with_debug.Lookup(addr + 1), want);
  EXPECT_EQ(with_debug.build_id(), bare.build_id());
  EXPECT_EQ(with_debug.load_bias(), bare.load_bias());
  fs::remove_all(dir);
}

}  // namespace
