// The order in which the reference's open-addressing hash map (keyed by a
// track id) visits its keys: some end-of-trace work (writing the args of
// slices still open) runs in that order, which shows in arg_set_id
// numbering. The map hashes an id with a murmur mix, starts at 1024 slots,
// probes quadratically, and grows (x8, then x2 past 1 MiB of slots) when
// three quarters full, re-inserting in slot order.
#pragma once

#include <cstdint>
#include <vector>

namespace fathom {

// `keys` in insertion order (distinct); returns them in the map's order.
std::vector<uint32_t> UpstreamMapOrder(const std::vector<uint32_t>& keys);

}  // namespace fathom
