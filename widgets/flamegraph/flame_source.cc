#include "widgets/flamegraph/flame_source.h"

#include <QCoreApplication>
#include <algorithm>

#include "widgets/common/format.h"

namespace fathom::gui {
namespace {

QString tr(const char* s) { return QCoreApplication::translate("Flamegraph", s); }

// Adds every node of `from` (finalized, pre-order) into `into`.
void mergeInto(const Flamegraph& from, Flamegraph* into) {
  std::vector<uint32_t> id(from.size());
  for (uint32_t i = 0; i < from.size(); ++i) {
    const FlamegraphNode& n = from.node(i);
    std::optional<uint32_t> parent;
    if (n.parent) parent = id[*n.parent];
    const FgStringId lib = from.has_map_name(i) ? into->Intern(from.map_name(i)) : kFgNoString;
    id[i] = into->Child(parent, into->Intern(from.name(i)), lib);
    FlamegraphNode& m = into->mutable_node(id[i]);
    m.count += n.count;
    m.size += n.size;
    m.alloc_count += n.alloc_count;
    m.alloc_size += n.alloc_size;
  }
}

}  // namespace

QString escapeRegex(const QString& text) {
  static const QString kSpecial = QStringLiteral("\\^$.|?*+()[]{}/");
  QString out;
  for (QChar c : text) {
    if (kSpecial.contains(c)) out += QLatin1Char('\\');
    out += c;
  }
  return out;
}

QString viewTitle(FlamegraphView view) {
  switch (view) {
    case FlamegraphView::kUnreleasedSize:
      return tr("Unreleased size");
    case FlamegraphView::kTotalSize:
      return tr("Total size");
    case FlamegraphView::kUnreleasedCount:
      return tr("Unreleased count");
    case FlamegraphView::kTotalCount:
      return tr("Total count");
    case FlamegraphView::kObjectSize:
      return tr("Object size");
    case FlamegraphView::kObjectCount:
      return tr("Object count");
    case FlamegraphView::kRetainedSize:
      return tr("Retained size (dominator tree)");
    case FlamegraphView::kSamples:
      return tr("CPU samples");
    case FlamegraphView::kValue:
      return tr("Value");
  }
  return {};
}

FlameTree::Unit unitOf(FlamegraphView view) {
  if (view == FlamegraphView::kSamples) return FlameTree::Unit::kSamples;
  return ViewIsBytes(view) ? FlameTree::Unit::kBytes : FlameTree::Unit::kCount;
}

FlameTree::Unit unitOf(FlamegraphView view, const FlameSource& source) {
  return source.bytes ? FlameTree::Unit::kBytes : unitOf(view);
}

QString kindTitle(ProfileKind kind) {
  switch (kind) {
    case ProfileKind::kNative:
      return tr("native");
    case ProfileKind::kJavaGraph:
      return tr("Java heap");
    case ProfileKind::kJavaSamples:
      return tr("Java allocations");
    case ProfileKind::kCpu:
      return tr("CPU samples");
    case ProfileKind::kAggregate:
      return tr("pprof");
  }
  return {};
}

std::vector<DumpInfo> listDumps(Core& core) {
  std::vector<DumpInfo> out;
  const int64_t start = core.storage().min_ts();
  for (const ProfileDump& d : ListProfiles(core.storage())) {
    DumpInfo info;
    const FlamegraphRequest req = RequestFor(d, std::nullopt);
    info.source.kind = d.kind;
    info.source.upid = req.upid;
    info.source.ts = req.ts;
    info.source.heap = req.heap;
    if (d.kind == ProfileKind::kJavaSamples || d.kind == ProfileKind::kCpu) {
      info.source.t0 = req.start_ts;
      info.source.t1 = req.end_ts;
    }
    const FlamegraphView view = DefaultView(d.kind);
    info.value = double(d.Total(view));
    if (d.kind == ProfileKind::kAggregate) {
      // One entry per sample type: the profile combo is the type picker.
      info.source.aggregate = req.aggregate_profile;
      info.source.bytes = AggregateIsBytes(d);
      info.preferred = d.default_sample_type;
      info.sample_type = d.sample_type;
      info.sample_unit = d.sample_unit;
      const QString amount = info.source.bytes
                                 ? formatBytes(info.value)
                                 : formatCount(int64_t(info.value)) + QLatin1Char(' ') +
                                       QString::fromStdString(d.sample_unit);
      info.heading = QStringLiteral("%1 · %2").arg(QString::fromStdString(d.process_name),
                                                   QString::fromStdString(d.sample_type));
      info.label = info.heading + QStringLiteral(" · ") + amount;
      out.push_back(std::move(info));
      continue;
    }
    QString process =
        d.process_name.empty() ? tr("<unknown>") : QString::fromStdString(d.process_name);
    if (d.pid) process += QStringLiteral(" [%1]").arg(d.pid);
    QString what = kindTitle(d.kind);
    if (!d.heap.empty() && d.kind == ProfileKind::kNative)
      what += QLatin1Char(' ') + QString::fromStdString(d.heap);
    const QString amount =
        ViewIsBytes(view) ? formatBytes(info.value) : formatCount(int64_t(info.value));
    info.heading = QStringLiteral("%1 · %2 @ +%3").arg(process, what, formatDuration(d.ts - start));
    info.label = QStringLiteral("%1 · %2 · %3 @ +%4")
                     .arg(process, what, amount, formatDuration(d.ts - start));
    out.push_back(std::move(info));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const DumpInfo& a, const DumpInfo& b) { return a.value > b.value; });
  return out;
}

// One build per value of a filter the core takes one value at a time (a
// CPU, a thread), merged into one tree.
template <typename SetFilter>
static Result<Flamegraph> buildEachMerged(Core& core, FlamegraphRequest req, FlamegraphView view,
                                          const QList<int>& values, SetFilter set) {
  Flamegraph merged;
  for (int v : values) {
    set(req, v);
    Result<Flamegraph> one = BuildFlamegraph(core.storage(), req);
    if (!one.ok()) return one.status();
    mergeInto(*one, &merged);
  }
  merged.Finalize(MetricOf(view));
  return merged;
}

Result<Flamegraph> buildSource(Core& core, const FlameSource& src, FlamegraphView view) {
  FlamegraphRequest req;
  req.kind = src.kind;
  req.view = view;
  req.upid = src.upid;
  req.ts = src.ts;
  req.heap = src.heap;
  req.aggregate_profile = src.aggregate;
  if (src.kind == ProfileKind::kCpu || src.kind == ProfileKind::kJavaSamples) {
    req.start_ts = src.t0;
    req.end_ts = src.t1;
  }
  if (src.kind == ProfileKind::kCpu && !src.utids.isEmpty()) {
    // Threads chosen: each thread's samples on any CPU.
    return buildEachMerged(core, req, view, src.utids,
                           [](FlamegraphRequest& r, int utid) { r.utid = uint32_t(utid); });
  }
  QList<int> cpus = src.cpus;
  if (src.kind == ProfileKind::kCpu && !cpus.isEmpty()) {
    // Some tracers (systing, simpleperf) leave perf_sample.cpu empty: a CPU
    // filter would then drop every sample, so the time range alone applies.
    const auto& samples = core.storage().profile.perf_sample;
    bool any = false;
    for (uint32_t r = 0; r < samples.row_count() && !any; ++r) any = samples.cpu.Get(r).has_value();
    if (!any) cpus.clear();
  }
  if (src.kind != ProfileKind::kCpu || cpus.size() <= 1) {
    if (cpus.size() == 1) req.cpu = uint32_t(cpus.front());
    return BuildFlamegraph(core.storage(), req);
  }
  // Several CPUs: the core filters one CPU at a time.
  return buildEachMerged(core, req, view, cpus,
                         [](FlamegraphRequest& r, int cpu) { r.cpu = uint32_t(cpu); });
}

}  // namespace fathom::gui
