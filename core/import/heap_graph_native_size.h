// Native memory owned by Java objects in an ART heap graph. A Java object that
// owns native memory (a Bitmap's pixels, say) is registered with a
// libcore.util.NativeAllocationRegistry; the runtime frees the memory through
// a sun.misc.Cleaner whose referent is the object and whose thunk points back
// at the registry. The heap dump records the registry's size on the registry
// object (native_allocation_registry_size_field); upstream Perfetto reports it
// as the native_size of the Cleaner's referent instead, skipping Cleaners that
// were already run (unlinked: their `next` points at themselves).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/storage/trace_storage.h"

namespace fathom {

// `registry_sizes`: heap_graph_object row -> the size its dump recorded.
// Adds each live Cleaner's registry size to its referent's native_size.
// Only `rows` (one dump's objects) are considered.
void AttributeNativeSizes(TraceStorage* s, const std::vector<uint32_t>& rows,
                          const std::unordered_map<uint32_t, int64_t>& registry_sizes);

}  // namespace fathom
