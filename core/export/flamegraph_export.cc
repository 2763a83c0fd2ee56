// Folded, speedscope and JSON writers, and the format dispatch. The SVG and
// pprof writers have their own files.
#include "core/export/flamegraph_export.h"

#include <cinttypes>
#include <cstdio>
#include <map>

#include "core/export/json_escape.h"

namespace fathom {
namespace {

constexpr std::pair<ExportFormat, std::string_view> kFormats[] = {
    {ExportFormat::kFolded, "folded"}, {ExportFormat::kSvg, "svg"},
    {ExportFormat::kPprof, "pprof"},   {ExportFormat::kSpeedscope, "speedscope"},
    {ExportFormat::kJson, "json"},
};

// Folded stacks separate frames by ';' and end with " VALUE": those
// characters inside a name would change the stack, so they are replaced.
void AppendFoldedName(std::string* out, std::string_view name) {
  for (char c : name) {
    if (c == ';')
      out->push_back(':');
    else if (c == '\n' || c == '\r')
      out->push_back(' ');
    else
      out->push_back(c);
  }
}

}  // namespace

std::string_view ExportFormatName(ExportFormat f) {
  for (const auto& [fmt, name] : kFormats)
    if (fmt == f) return name;
  return "";
}

std::optional<ExportFormat> ParseExportFormat(std::string_view s) {
  for (const auto& [fmt, name] : kFormats)
    if (name == s) return fmt;
  return std::nullopt;
}

std::string ExportFolded(const Flamegraph& fg, const ExportOptions& opt) {
  Metric m = MetricOf(opt.view);
  std::string out;
  std::vector<uint32_t> stack;  // current path (pre-order walk)
  for (uint32_t i = 0; i < fg.size(); ++i) {
    const FlamegraphNode& n = fg.node(i);
    stack.resize(n.depth);
    stack.push_back(i);
    int64_t v = n.self(m);
    if (v == 0) continue;
    for (size_t k = 0; k < stack.size(); ++k) {
      if (k) out.push_back(';');
      AppendFoldedName(&out, fg.name(stack[k]));
    }
    char buf[32];
    snprintf(buf, sizeof(buf), " %" PRId64 "\n", v);
    out += buf;
  }
  return out;
}

std::string ExportSpeedscope(const Flamegraph& fg, const ExportOptions& opt) {
  Metric m = MetricOf(opt.view);
  // One frame per (name, library); one weighted sample per node with a self
  // value. Negative weights (diff trees) are not representable: dropped.
  std::map<std::pair<std::string, std::string>, size_t> frame_index;
  std::vector<uint32_t> frame_of(fg.size());
  std::string frames;
  for (uint32_t i = 0; i < fg.size(); ++i) {
    auto key = std::make_pair(std::string(fg.name(i)), std::string(fg.map_name(i)));
    auto [it, inserted] = frame_index.emplace(key, frame_index.size());
    frame_of[i] = static_cast<uint32_t>(it->second);
    if (!inserted) continue;
    if (it->second) frames += ",";
    frames += "{\"name\":" + JsonString(key.first);
    if (!key.second.empty()) frames += ",\"file\":" + JsonString(key.second);
    frames += "}";
  }
  std::string samples, weights;
  int64_t total = 0;
  bool first = true;
  for (uint32_t i = 0; i < fg.size(); ++i) {
    int64_t v = fg.node(i).self(m);
    if (v <= 0) continue;
    if (!first) {
      samples += ",";
      weights += ",";
    }
    first = false;
    samples += "[";
    std::vector<uint32_t> path = fg.PathTo(i);
    for (size_t k = 0; k < path.size(); ++k) {
      if (k) samples += ",";
      samples += std::to_string(frame_of[path[k]]);
    }
    samples += "]";
    weights += std::to_string(v);
    total += v;
  }
  std::string unit = ViewIsBytes(opt.view) || opt.sample_unit == "bytes" ? "bytes" : "none";
  std::string name = opt.title.empty() ? std::string(ViewName(opt.view)) : opt.title;
  std::string out;
  out += "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",";
  out += "\"shared\":{\"frames\":[" + frames + "]},";
  out += "\"profiles\":[{\"type\":\"sampled\",\"name\":" + JsonString(name) + ",\"unit\":\"" +
         unit + "\",\"startValue\":0,\"endValue\":" + std::to_string(total) + ",\"samples\":[" +
         samples + "],\"weights\":[" + weights + "]}],";
  out += "\"name\":" + JsonString(name) + ",\"activeProfileIndex\":0,";
  out += "\"exporter\":\"fathom\"}\n";
  return out;
}

std::string ExportJson(const Flamegraph& fg, const ExportOptions& opt) {
  std::string out = "{\"kind\":\"" + std::string(KindName(opt.kind)) + "\",\"view\":\"" +
                    std::string(ViewName(opt.view)) + "\",\"title\":" + JsonString(opt.title) +
                    ",\"total\":" + std::to_string(fg.Total(MetricOf(opt.view))) + ",\"roots\":[";
  // Pre-order with explicit closing of finished subtrees.
  std::vector<uint32_t> open;
  auto close_to = [&](uint32_t depth) {
    while (open.size() > depth) {
      out += "]}";
      open.pop_back();
    }
  };
  for (uint32_t i = 0; i < fg.size(); ++i) {
    const FlamegraphNode& n = fg.node(i);
    close_to(n.depth);
    bool first_sibling = n.parent ? fg.children(*n.parent).front() == i : fg.roots().front() == i;
    if (!first_sibling) out += ",";
    out += "{\"name\":" + JsonString(fg.name(i));
    if (fg.has_map_name(i)) out += ",\"map\":" + JsonString(fg.map_name(i));
    out += ",\"self_size\":" + std::to_string(n.size) +
           ",\"size\":" + std::to_string(n.cumulative_size) +
           ",\"self_count\":" + std::to_string(n.count) +
           ",\"count\":" + std::to_string(n.cumulative_count) +
           ",\"self_alloc_size\":" + std::to_string(n.alloc_size) +
           ",\"alloc_size\":" + std::to_string(n.cumulative_alloc_size) +
           ",\"self_alloc_count\":" + std::to_string(n.alloc_count) +
           ",\"alloc_count\":" + std::to_string(n.cumulative_alloc_count);
    if (fg.is_diff())
      out += ",\"base_size\":" + std::to_string(fg.BaseCumulative(i, Metric::kSize)) +
             ",\"base_count\":" + std::to_string(fg.BaseCumulative(i, Metric::kCount));
    out += ",\"children\":[";
    open.push_back(i);
  }
  close_to(0);
  out += "]}\n";
  return out;
}

Result<std::string> ExportFlamegraph(const Flamegraph& fg, ExportFormat format,
                                     const ExportOptions& opt) {
  switch (format) {
    case ExportFormat::kFolded:
      return ExportFolded(fg, opt);
    case ExportFormat::kSvg:
      return ExportSvg(fg, opt);
    case ExportFormat::kPprof:
      return ExportPprof(fg, opt);
    case ExportFormat::kSpeedscope:
      return ExportSpeedscope(fg, opt);
    case ExportFormat::kJson:
      return ExportJson(fg, opt);
  }
  return ErrorStatus("unknown export format");
}

}  // namespace fathom
