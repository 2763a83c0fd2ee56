// `fathom-cli flamegraph TRACE ...`: one dump as folded stacks, SVG, pprof,
// speedscope or JSON; with --base-ts, the difference of two dumps.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "app/cli/commands.h"
#include "app/cli/load.h"
#include "app/cli/terminal_text.h"
#include "core/export/flamegraph_export.h"
#include "core/flamegraph/profiles.h"

namespace fathom::cli {
namespace {

constexpr const char* kUsage =
    "usage: fathom-cli flamegraph TRACE [--upid N|--pid N] [--ts NS]\n"
    "         [--kind native|java-graph|java-samples|cpu|pprof]\n"
    "         [--view unreleased-size|total-size|unreleased-count|total-count|\n"
    "                 object-size|object-count|retained-size|samples|\n"
    "                 SAMPLE_TYPE (a pprof sample type: alloc_space, cpu, ...)]\n"
    "         [--base-ts NS] [--format folded|svg|pprof|speedscope|json] [-o OUT]\n"
    "         [--heap NAME] [--from NS] [--to NS] [--cpu N] [--utid N]\n"
    "         [--inverted] [--focus RE] [--hide RE] [--collapse-recursion] [--min VALUE]\n"
    "Defaults: the largest dump (native first), its first view, folded, stdout.\n";

struct Options {
  std::string trace, out;
  std::optional<int64_t> upid, pid, ts, base_ts, from, to, min_value;
  std::optional<uint32_t> cpu, utid;
  std::optional<ProfileKind> kind;
  std::optional<FlamegraphView> view;
  std::optional<std::string> heap, focus, hide;
  std::optional<std::string> sample_type;  // --view naming a pprof sample type
  std::string view_name;                   // --view as given
  ExportFormat format = ExportFormat::kFolded;
  bool inverted = false, collapse = false;
};

bool ParseInt(const std::string& s, int64_t* out) {
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end) return false;
  *out = v;
  return true;
}

std::optional<Options> Parse(const std::vector<std::string>& args) {
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string* { return i + 1 < args.size() ? &args[++i] : nullptr; };
    auto int_opt = [&](std::optional<int64_t>* dst) {
      const std::string* v = value();
      int64_t x;
      if (!v || !ParseInt(*v, &x)) return false;
      *dst = x;
      return true;
    };
    bool ok = true;
    if (a == "--upid") {
      ok = int_opt(&o.upid);
    } else if (a == "--pid") {
      ok = int_opt(&o.pid);
    } else if (a == "--ts") {
      ok = int_opt(&o.ts);
    } else if (a == "--base-ts") {
      ok = int_opt(&o.base_ts);
    } else if (a == "--from") {
      ok = int_opt(&o.from);
    } else if (a == "--to") {
      ok = int_opt(&o.to);
    } else if (a == "--min") {
      ok = int_opt(&o.min_value);
    } else if (a == "--cpu" || a == "--utid") {
      std::optional<int64_t> v;
      ok = int_opt(&v) && *v >= 0;
      if (ok) (a == "--cpu" ? o.cpu : o.utid) = static_cast<uint32_t>(*v);
    } else if (a == "--kind") {
      const std::string* v = value();
      o.kind = v ? ParseKind(*v) : std::nullopt;
      ok = o.kind.has_value();
    } else if (a == "--view") {
      const std::string* v = value();
      o.view = v ? ParseView(*v) : std::nullopt;
      // Any other name may be a sample type of an aggregate (pprof) profile.
      if (v && !o.view && !v->empty()) o.sample_type = *v;
      if (v) o.view_name = *v;
      ok = o.view.has_value() || o.sample_type.has_value();
    } else if (a == "--format") {
      const std::string* v = value();
      auto f = v ? ParseExportFormat(*v) : std::nullopt;
      ok = f.has_value();
      if (ok) o.format = *f;
    } else if (a == "-o" || a == "--output") {
      const std::string* v = value();
      ok = v != nullptr;
      if (ok) o.out = *v;
    } else if (a == "--heap" || a == "--focus" || a == "--hide") {
      const std::string* v = value();
      ok = v != nullptr;
      if (ok) (a == "--heap" ? o.heap : a == "--focus" ? o.focus : o.hide) = *v;
    } else if (a == "--inverted") {
      o.inverted = true;
    } else if (a == "--collapse-recursion") {
      o.collapse = true;
    } else if (o.trace.empty() && !a.empty() && a[0] != '-') {
      o.trace = a;
    } else {
      ok = false;
    }
    if (!ok) {
      fprintf(stderr, "fathom-cli flamegraph: bad or incomplete option '%s'\n", a.c_str());
      return std::nullopt;
    }
  }
  if (o.trace.empty()) return std::nullopt;
  return o;
}

// The upid of --pid (the process with that pid that has profile data).
std::optional<uint32_t> UpidOfPid(const std::vector<ProfileDump>& dumps, int64_t pid) {
  for (const ProfileDump& d : dumps)
    if (d.pid == pid && !d.all_processes) return d.upid;
  return std::nullopt;
}

}  // namespace

int RunFlamegraph(const std::vector<std::string>& args) {
  std::optional<Options> parsed = Parse(args);
  if (!parsed) {
    fputs(kUsage, stderr);
    return 2;
  }
  Options o = *parsed;  // a copy: --kind pprof may turn --view into a sample type
  TraceProcessor tp;
  if (!LoadOrReport(&tp, o.trace)) return 1;
  const TraceStorage& storage = tp.storage();
  std::vector<ProfileDump> dumps = ListProfiles(storage);

  std::optional<uint32_t> upid;
  if (o.upid) upid = static_cast<uint32_t>(*o.upid);
  if (o.pid) {
    upid = UpidOfPid(dumps, *o.pid);
    if (!upid) {
      fprintf(stderr, "fathom-cli flamegraph: no profile of pid %" PRId64 "\n", *o.pid);
      return 1;
    }
  }
  // A view names its kind when --kind is not given (retained-size: java-graph).
  std::optional<ProfileKind> kind = o.kind;
  // (Not a copy of o.view: GCC 12 then warns of reading its disengaged payload.)
  std::optional<FlamegraphView> view_opt;
  if (o.view) view_opt = *o.view;
  // With --kind pprof, a view name such as "samples" is a sample type.
  if (kind == ProfileKind::kAggregate && o.view && *o.view != FlamegraphView::kValue) {
    o.sample_type = o.view_name;
    view_opt.reset();
  }
  if (o.sample_type) {
    if (kind && *kind != ProfileKind::kAggregate) {
      fprintf(stderr, "fathom-cli flamegraph: unknown view '%s'\n", o.sample_type->c_str());
      return 2;
    }
    kind = ProfileKind::kAggregate;
  }
  if (!kind && view_opt) {
    for (ProfileKind k : {ProfileKind::kNative, ProfileKind::kJavaGraph, ProfileKind::kJavaSamples,
                          ProfileKind::kCpu, ProfileKind::kAggregate})
      if (ViewFits(k, *view_opt) && PickLargestProfile(dumps, k, upid)) {
        kind = k;
        break;
      }
  }
  // The dump: the one at --ts if given, else the largest.
  std::optional<ProfileDump> dump;
  if (o.ts) {
    for (const ProfileDump& d : dumps) {
      if ((kind && d.kind != *kind) || (upid && (d.upid != *upid || d.all_processes))) continue;
      if (o.heap && d.heap != *o.heap) continue;
      bool hit = d.ts == *o.ts || (d.ts <= *o.ts && *o.ts <= d.end_ts && d.end_ts != d.ts);
      if (!hit) continue;
      if (!dump || d.Total(DefaultView(d.kind)) > dump->Total(DefaultView(dump->kind))) dump = d;
    }
  } else {
    std::vector<ProfileDump> candidates;
    for (const ProfileDump& d : dumps)
      if ((!o.heap || d.heap == *o.heap) && (!o.sample_type || d.sample_type == *o.sample_type))
        candidates.push_back(d);
    dump = PickLargestProfile(candidates, kind, upid);
  }
  if (!dump) {
    if (o.sample_type)
      fprintf(stderr, "fathom-cli flamegraph: no view or pprof sample type '%s'\n",
              o.sample_type->c_str());
    fprintf(stderr, "fathom-cli flamegraph: no matching profile (see `fathom-cli profiles %s`)\n",
            o.trace.c_str());
    return 1;
  }
  FlamegraphView view = view_opt.value_or(DefaultView(dump->kind));
  if (!ViewFits(dump->kind, view)) {
    fprintf(stderr, "fathom-cli flamegraph: view '%s' does not apply to %s profiles\n",
            std::string(ViewName(view)).c_str(), std::string(KindName(dump->kind)).c_str());
    return 2;
  }
  FlamegraphRequest req = RequestFor(*dump, view);
  if (o.from) req.start_ts = *o.from;
  if (o.to) req.end_ts = *o.to;
  req.cpu = o.cpu;
  req.utid = o.utid;
  Result<Flamegraph> fg = BuildFlamegraph(storage, req);
  if (!fg.ok()) {
    fprintf(stderr, "fathom-cli flamegraph: %s\n", fg.status().message().c_str());
    return 1;
  }
  Flamegraph tree = std::move(*fg);
  if (o.base_ts) {
    FlamegraphRequest base = req;
    base.ts = *o.base_ts;
    if (req.kind == ProfileKind::kCpu || req.kind == ProfileKind::kJavaSamples) {
      // Sample sets: the base is the same span starting at --base-ts.
      base.start_ts = *o.base_ts;
      base.end_ts = *o.base_ts + (req.end_ts - req.start_ts);
    }
    Result<Flamegraph> a = BuildFlamegraph(storage, base);
    if (!a.ok()) {
      fprintf(stderr, "fathom-cli flamegraph: base: %s\n", a.status().message().c_str());
      return 1;
    }
    tree = Flamegraph::Diff(*a, tree);
  }
  Metric metric = MetricOf(view);
  if (o.focus) {
    auto r = tree.Focus(*o.focus);
    if (!r.ok())
      return fprintf(stderr, "fathom-cli flamegraph: %s\n", r.status().message().c_str()), 2;
    tree = std::move(*r);
  }
  if (o.hide) {
    auto r = tree.Hide(*o.hide);
    if (!r.ok())
      return fprintf(stderr, "fathom-cli flamegraph: %s\n", r.status().message().c_str()), 2;
    tree = std::move(*r);
  }
  if (o.collapse) tree = tree.CollapseRecursion();
  if (o.inverted) tree = tree.Inverted();
  if (o.min_value) tree = tree.Prune(metric, *o.min_value);

  ExportOptions eo;
  eo.kind = dump->kind;
  eo.view = view;
  eo.time_nanos = dump->ts;
  eo.sample_type = dump->sample_type;
  eo.sample_unit = dump->sample_unit;
  eo.title =
      std::string(KindName(dump->kind)) + " " + std::string(ViewName(view)) + " - " +
      (dump->all_processes          ? dump->process_name
       : dump->process_name.empty() ? "pid " + std::to_string(dump->pid)
                                    : dump->process_name + " (" + std::to_string(dump->pid) + ")") +
      (dump->heap.empty() ? "" : " - " + dump->heap) + " @ " + std::to_string(dump->ts) +
      (o.base_ts ? " minus @ " + std::to_string(*o.base_ts) : "");
  if (dump->kind == ProfileKind::kAggregate)
    eo.title =
        "pprof " + dump->sample_type + " (" + dump->sample_unit + ") - " + dump->process_name;
  Result<std::string> data = ExportFlamegraph(tree, o.format, eo);
  if (!data.ok()) {
    fprintf(stderr, "fathom-cli flamegraph: %s\n", data.status().message().c_str());
    return 1;
  }
  // The title names the process and heap from the trace; the export itself is data.
  fprintf(stderr, "%s: %zu nodes, total %" PRId64 "\n", TerminalSafe(eo.title).c_str(), tree.size(),
          tree.Total(metric));
  FILE* out = stdout;
  if (!o.out.empty() && o.out != "-") {
    out = fopen(o.out.c_str(), "wb");
    if (!out) {
      fprintf(stderr, "fathom-cli flamegraph: cannot write %s\n", o.out.c_str());
      return 1;
    }
  }
  fwrite(data->data(), 1, data->size(), out);
  if (out != stdout) fclose(out);
  return 0;
}

}  // namespace fathom::cli
