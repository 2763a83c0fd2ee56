// Writes a Flamegraph in the formats other tools read: collapsed stacks
// (folded), a standalone interactive SVG, pprof (gzipped profile.proto),
// speedscope JSON and a plain JSON tree.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "core/flamegraph/flamegraph.h"
#include "core/flamegraph/profiles.h"

namespace fathom {

enum class ExportFormat : uint8_t { kFolded, kSvg, kPprof, kSpeedscope, kJson };

// "folded", "svg", "pprof", "speedscope", "json".
std::string_view ExportFormatName(ExportFormat f);
std::optional<ExportFormat> ParseExportFormat(std::string_view s);

struct ExportOptions {
  ProfileKind kind = ProfileKind::kNative;
  FlamegraphView view = FlamegraphView::kUnreleasedSize;  // the value folded/svg/speedscope show
  std::string title;                                      // SVG heading, speedscope name
  int64_t time_nanos = 0;                                 // pprof time_nanos (the dump's ts)
  // aggregate (pprof) profiles: the values' sample type and unit.
  std::string sample_type, sample_unit;
  int svg_width = 1200;
};

// Folded: one line "root;child;leaf VALUE" per node with a non-zero self
// value; the sum of the values equals the tree's total for the view.
std::string ExportFolded(const Flamegraph& fg, const ExportOptions& opt);
// Standalone SVG (inline script; no network): click to zoom, Ctrl+F/search
// with "% matched", tooltips.
std::string ExportSvg(const Flamegraph& fg, const ExportOptions& opt);
// pprof Profile, gzipped. Native trees carry four sample types
// (alloc_objects, alloc_space, inuse_objects, inuse_space); others the ones of
// their kind. One location per (frame, library), one function per frame name,
// one mapping per library.
Result<std::string> ExportPprof(const Flamegraph& fg, const ExportOptions& opt);
// speedscope file format ("sampled" profile of the view's weights).
std::string ExportSpeedscope(const Flamegraph& fg, const ExportOptions& opt);
// {"name":..,"map":..,"self":..,"value":..,"children":[..]} for every metric.
std::string ExportJson(const Flamegraph& fg, const ExportOptions& opt);

Result<std::string> ExportFlamegraph(const Flamegraph& fg, ExportFormat format,
                                     const ExportOptions& opt);

}  // namespace fathom
