// Writes a read HPROF dump into heap_graph_class / heap_graph_object /
// heap_graph_reference as upstream's HPROF importer does: one process (pid 0)
// at the header's timestamp, a class row per loaded class plus a
// "java.lang.Class<...>" row per class object, references by qualified field
// name or "[index]", and reachability from the GC roots (weak, phantom and
// finalizer referents are not followed).
#pragma once

#include "core/import/hprof/hprof_dump.h"

namespace fathom {
struct TraceContext;
namespace hprof {

// Returns the number of heap_graph_object rows written.
size_t WriteTables(Dump& dump, TraceContext* ctx);

}  // namespace hprof
}  // namespace fathom
