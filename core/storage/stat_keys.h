// The `key` column of the stats table: upstream numbers every stat it knows
// (0, 1, 2, ... in its own order) and shows that number next to the name.
// The numbers are facts read off trace_processor_shell v58.2's stats table.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace fathom {

// Upstream's key of the stat called `name`; nullopt for stats upstream does
// not list, or lists only per index and no trace here has shown.
std::optional<int64_t> UpstreamStatKey(std::string_view name);

}  // namespace fathom
