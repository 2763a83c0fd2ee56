// Writes a read HPROF dump into heap_graph_class / heap_graph_object /
// heap_graph_reference as upstream's HPROF importer does: one process (pid 0)
// at the header's timestamp, a class row per loaded class plus a
// "java.lang.Class<...>" row per class object, references by qualified field
// name or "[index]", and reachability from the GC roots (weak, phantom and
// finalizer referents are not followed).
#pragma once

#include <utility>
#include <vector>

#include "core/import/hprof/hprof_dump.h"

namespace fathom {
struct TraceContext;
namespace hprof {

// Returns the number of heap_graph_object rows written.
size_t WriteTables(Dump& dump, TraceContext* ctx);

// Per record index: for the first record of each object id, the record its
// row is written from (the id's last record); kNoRow (~0u) for the others.
// A row is written for each such first record, in record order, when its
// class is known. `by_id`: each id with its first record index, by id.
std::vector<uint32_t> RecordsById(const Dump& dump,
                                  std::vector<std::pair<uint64_t, uint32_t>>* by_id);

}  // namespace hprof
}  // namespace fathom
