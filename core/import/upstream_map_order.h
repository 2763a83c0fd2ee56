// The order in which the reference's open-addressing hash maps visit their
// keys: some end-of-trace work (writing the args of slices still open, the
// JSON sort-index hints) runs in that order, which shows in arg_set_id
// numbering. A map hashes an integer key with a murmur mix (a track id:
// the mix folded into a seed), starts at 1024 slots, probes quadratically,
// and grows (x8, then x2 past 1 MiB of slots) when three quarters full,
// re-inserting in slot order.
#pragma once

#include <cstdint>
#include <vector>

namespace fathom {

enum class UpstreamKey { kTrackId, kInteger };

// `keys` in insertion order (distinct); returns them in the map's order.
std::vector<uint32_t> UpstreamMapOrder(const std::vector<uint32_t>& keys, UpstreamKey kind);

}  // namespace fathom
