// Which Android app packages a stack_profile_frame belongs to, for choosing
// its DeobfuscationMapping as upstream does (each rule checked with the
// oracle on variant traces):
// - a frame whose mapping is an installed app's file
//   (/data/app/[~~X==/]<package>-Y==/base.apk) belongs to that package only;
// - a frame of an anonymous memfd mapping ("/memfd:jit-cache", ART's JIT
//   code) may belong to any package: every mapping is tried;
// - any other frame belongs to the packages of every process whose samples
//   (heapprofd allocations, perf samples, CPU profile samples, a heap graph's
//   OOME stack) reach it through their callsites, a process's packages being
//   the package_list entries of its uid.
// So two apps' obfuscated "a.b" stay apart, and without package_list only
// frames of /data/app files and of JIT code are deobfuscated.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/storage/trace_storage.h"

namespace fathom {

struct FramePackages {
  // Indexed by frame id; each list sorted, without repeats.
  std::vector<std::vector<StringId>> packages;
  // Indexed by frame id: the frame may take any package's mapping.
  std::vector<bool> any_package;
};

FramePackages FindFramePackages(const TraceStorage& storage);

// The package of an installed app's file, from its /data/app/ path, if it
// is one.
std::optional<std::string> AppPackageOfPath(std::string_view path);

}  // namespace fathom
