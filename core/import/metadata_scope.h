// Which ids a `metadata` row carries: upstream scopes every key to the whole
// load, to one trace, to one machine or to one machine within one trace, and
// leaves the ids a key is not scoped by NULL.
#pragma once

#include <string_view>

namespace fathom {

enum class MetadataScope { kLoad, kTrace, kMachine, kMachineAndTrace };

// Keys upstream does not list are treated as trace properties.
MetadataScope ScopeOfMetadataKey(std::string_view key);

}  // namespace fathom
