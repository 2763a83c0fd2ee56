// Where flamegraphs come from: the dumps of a trace (core ListProfiles) and
// the request that builds one (core BuildFlamegraph). Everything taking a
// Core& runs on the session's query lane, never on the UI thread.
#pragma once

#include <QList>
#include <QString>
#include <optional>
#include <string>
#include <vector>

#include "core/flamegraph/profiles.h"
#include "widgets/common/trace_session.h"
#include "widgets/flamegraph/flame_tree.h"

namespace fathom::gui {

// One thing the panel can show: a dump, or CPU samples over a range.
struct FlameSource {
  ProfileKind kind = ProfileKind::kNative;
  std::optional<uint32_t> upid;
  qint64 ts = 0;                    // native, java graph: the dump
  std::optional<std::string> heap;  // native: one heap (nullopt = all but ART)
  qint64 t0 = 0, t1 = 0;            // java samples, cpu: [t0, t1)
  QList<int> cpus;                  // cpu: empty = all
  QList<int> utids;                 // cpu: only these threads' samples (empty = all)
  // aggregate (pprof): the sample type's profile row, and whether its unit
  // is bytes (values are then shown as sizes).
  std::optional<uint32_t> aggregate;
  bool bytes = false;
  bool operator==(const FlameSource& o) const = default;
};

// A dump ("diamond") with what the profile combo shows.
struct DumpInfo {
  FlameSource source;
  QString label;           // "system_server [1234] · native malloc · 12.3 MiB @ 1.250 s"
  QString heading;         // the label without the amount, which depends on the view
  double value = 0;        // default view's total
  bool preferred = false;  // aggregate: the file's default sample type
  std::string sample_type, sample_unit;  // aggregate: "alloc_space", "bytes"
};

// Every dump in the trace, largest first (by its default view).
std::vector<DumpInfo> listDumps(Core& core);

// `text` as a literal inside the core's (ECMAScript) regular expressions.
QString escapeRegex(const QString& text);

// "Unreleased size", "Retained size", ...
QString viewTitle(FlamegraphView view);
FlameTree::Unit unitOf(FlamegraphView view);
// The unit of `source` shown in `view` (pprof sample types carry their own).
FlameTree::Unit unitOf(FlamegraphView view, const FlameSource& source);
QString kindTitle(ProfileKind kind);

// The finalized core tree of `source` in `view`. CPU sources with several
// (not all) CPUs merge one tree per CPU.
Result<Flamegraph> buildSource(Core& core, const FlameSource& source, FlamegraphView view);

}  // namespace fathom::gui
