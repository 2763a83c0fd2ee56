// Turns code addresses of live processes into Perfetto's interned profiling entries: each
// pc is found in /proc/PID/maps, named from the mapped ELF file's own symbols, and given a
// frame iid; strings, mappings, frames and callstacks get an iid once, and the entries not
// yet written are handed out serialized. Shared by the heap profiler's collector (which
// writes them into ProfilePackets) and the recorder's CPU sampler (InternedData), so both
// name frames the same way and Fathom's offline symbolizer reads both alike.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "elf_symbols.h"

namespace fathom::device {

class CodeInterner {
 public:
  // InternedData keeps function names, build ids and mapping paths in separate tables;
  // a ProfilePacket has one string table and takes all three.
  enum StringTable { kFunctionNames = 0, kBuildIds, kMappingPaths, kNumStringTables };

  // `name_empty_strings`: a frame without a name and a mapping without a build id name
  // the interned "" rather than leave the id out (0). A ProfilePacket's readers take id 0
  // as "" only until the sequence's first dump ends, and heapprofd's own tables name
  // every string; InternedData readers take 0 as "no name" throughout.
  explicit CodeInterner(bool name_empty_strings = false)
      : name_empty_strings_(name_empty_strings) {}

  struct MapEntry {
    uint64_t start, end, offset;
    std::string path;
    uint64_t iid = 0;  // interned lazily
  };
  // What is known of one process's code; the owner keeps one per process.
  struct ProcessCode {
    pid_t pid = 0;
    std::vector<MapEntry> maps;  // executable mappings, sorted by start
    std::unordered_map<uint64_t, uint64_t> frame_of_pc;
    uint64_t map_reparses = 0;
  };

  // Reads /proc/PID/maps into `p` (keeping the iids of mappings that did not change).
  bool ReadMaps(ProcessCode& p);
  // The frame of `pc` in process `p`; reads the maps again when pc is in none of them
  // (new code since, e.g. dlopen). A return address is named by the call before it.
  uint64_t FrameIid(ProcessCode& p, uint64_t pc, bool return_address = true);
  // A kernel frame: pc in the "[kernel.kallsyms]" mapping, named by `name` when known.
  uint64_t KernelFrameIid(uint64_t pc, const std::string& name);
  uint64_t CallstackIid(const std::vector<uint64_t>& frames_root_first);
  // The pcs of `p` may now hold other code (dlclose): look them up again.
  void ForgetCode(ProcessCode& p);

  bool has_new() const;
  // Serialized InternedString / Mapping / Frame / Callstack messages not yet handed out.
  std::vector<std::string> TakeStrings(StringTable table);
  std::vector<std::string> TakeMappings() { return std::exchange(new_mappings_, {}); }
  std::vector<std::string> TakeFrames() { return std::exchange(new_frames_, {}); }
  std::vector<std::string> TakeCallstacks() { return std::exchange(new_callstacks_, {}); }

 private:
  MapEntry* FindMap(ProcessCode& p, uint64_t pc);
  uint64_t MappingIid(MapEntry& m);
  uint64_t StringIid(StringTable table, const std::string& s);
  uint64_t AddFrame(uint64_t mapping, uint64_t rel_pc, const std::string& name);
  const ElfSymbols& Elf(const std::string& path);

  bool name_empty_strings_;
  std::map<std::string, std::unique_ptr<ElfSymbols>> elves_;
  // One iid space over all tables, so a ProfilePacket can hold them in one table.
  std::map<std::pair<int, std::string>, uint64_t> string_iids_;
  std::map<std::tuple<std::string, uint64_t, uint64_t, uint64_t>, uint64_t> mapping_iids_;
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> frame_iids_;  // (mapping, rel_pc)
  std::map<std::vector<uint64_t>, uint64_t> callstack_iids_;
  uint64_t unknown_mapping_ = 0, kernel_mapping_ = 0;
  std::vector<std::string> new_strings_[kNumStringTables];
  std::vector<std::string> new_mappings_, new_frames_, new_callstacks_;
};

}  // namespace fathom::device
