// The script layer of an exported SVG flamegraph: search and click-to-zoom,
// for viewers that run scripts (browsers). The frames themselves are static
// SVG in the file, so renderers without scripts (rsvg, ImageMagick, image
// viewers) show the whole graph too.
#pragma once

namespace fathom {

// Expects `var DATA = {width, unit, diff, strings, hashes, nodes}` before it,
// and the elements #frames (holding the static frames, each a g.f with a
// data-i node index), #details, #matched, #search and #reset.
extern const char kSvgFlamegraphScript[];

}  // namespace fathom
