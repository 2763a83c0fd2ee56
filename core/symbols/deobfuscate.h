// `fathom-cli deobfuscate`: the obfuscated Java class, field and method names
// a trace uses (heap_graph_class, heap_graph_reference field names, Java
// frames of allocation samples) are looked up in ProGuard/R8 mapping files and
// written as DeobfuscationMapping packets, one per app package, to be
// appended to the trace like upstream's `traceconv deobfuscate` output. Only
// classes the trace mentions are written.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "core/symbols/proguard_map.h"

namespace fathom {
class TraceStorage;
}

namespace fathom::symbols {

struct DeobfuscateResult {
  std::string packets;  // serialized Trace
  size_t classes = 0;   // obfuscated classes the trace mentions
  size_t classes_mapped = 0;
  size_t members_mapped = 0;          // fields + methods written
  std::vector<std::string> unmapped;  // class names found in no map (first few)
  // Packages whose map names classes of the trace's Java frames although no
  // frame belongs to them (frame_packages.h: no process of theirs in
  // package_list, no /data/app file of theirs): those frames stay
  // obfuscated, in Fathom as upstream.
  std::vector<std::string> packages_without_frames;
};

// Fails when a map cannot be read or parsed (file:line in the message).
Result<DeobfuscateResult> DeobfuscateTrace(const TraceStorage& storage,
                                           const std::vector<ProguardMapSpec>& maps);

// Why `package`'s map leaves the trace's Java frames obfuscated, and what to
// record instead.
std::string NoFramesOfPackageNote(const std::string& package);

// FATHOM_PROGUARD_MAP, else PERFETTO_PROGUARD_MAP (empty when neither is set).
Result<std::vector<ProguardMapSpec>> ProguardMapsFromEnvironment();

}  // namespace fathom::symbols
