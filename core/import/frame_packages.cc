#include "core/import/frame_packages.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <utility>

namespace fathom {
namespace {

// Android uids are user * 100000 + app id; package_list holds app ids.
constexpr int64_t kPerUserRange = 100000;

// upid -> its packages (empty for processes of no known package).
std::vector<std::vector<StringId>> ProcessPackages(const TraceStorage& s) {
  std::unordered_map<int64_t, std::vector<StringId>> by_appid;
  const auto& packages = s.package_list;
  for (uint32_t i = 0; i < packages.row_count(); ++i)
    by_appid[packages.uid[i] % kPerUserRange].push_back(packages.package_name[i]);
  std::vector<std::vector<StringId>> out(s.process.row_count());
  for (uint32_t upid = 0; upid < s.process.row_count(); ++upid) {
    std::optional<int64_t> uid = s.process.uid.Get(upid);
    if (!uid) continue;
    auto it = by_appid.find(*uid % kPerUserRange);
    if (it != by_appid.end()) out[upid] = it->second;
  }
  return out;
}

// Frames whose mapping decides their package (app files, JIT code); the
// rest stay for the sample walk.
std::vector<bool> PackagesFromMappings(const TraceStorage& s, FramePackages& out) {
  const auto& mappings = s.profile.stack_profile_mapping;
  enum class Kind : uint8_t { kNone, kApp, kAny };
  std::vector<Kind> kind(mappings.row_count(), Kind::kNone);
  std::vector<StringId> package(mappings.row_count(), kNullStringId);
  for (uint32_t m = 0; m < mappings.row_count(); ++m) {
    if (mappings.name[m] == kNullStringId) continue;
    std::string_view path = s.GetString(mappings.name[m]);
    if (path.substr(0, 7) == "/memfd:") {
      kind[m] = Kind::kAny;
    } else if (auto app = AppPackageOfPath(path)) {
      kind[m] = Kind::kApp;
      package[m] = s.strings.Find(*app);  // null: no mapping names it
    }
  }
  const auto& frames = s.profile.stack_profile_frame;
  std::vector<bool> decided(frames.row_count(), false);
  for (uint32_t f = 0; f < frames.row_count(); ++f) {
    uint32_t m = frames.mapping[f];
    if (m >= kind.size() || kind[m] == Kind::kNone) continue;
    decided[f] = true;
    out.any_package[f] = kind[m] == Kind::kAny;
    if (package[m] != kNullStringId) out.packages[f].push_back(package[m]);
  }
  return decided;
}

}  // namespace

std::optional<std::string> AppPackageOfPath(std::string_view path) {
  constexpr std::string_view kDataApp = "/data/app/";
  if (path.substr(0, kDataApp.size()) != kDataApp) return std::nullopt;
  path.remove_prefix(kDataApp.size());
  size_t slash = path.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  // Android 11+ adds a random parent folder: /data/app/~~X==/<package>-Y==/.
  size_t second = path.find('/', slash + 1);
  std::string_view dir = second == std::string_view::npos
                             ? path.substr(0, slash)
                             : path.substr(slash + 1, second - slash - 1);
  size_t minus = dir.find('-');
  if (minus == std::string_view::npos) return std::nullopt;
  return std::string(dir.substr(0, minus));
}

FramePackages FindFramePackages(const TraceStorage& s) {
  const auto& frames = s.profile.stack_profile_frame;
  FramePackages out;
  out.packages.resize(frames.row_count());
  out.any_package.resize(frames.row_count(), false);
  std::vector<bool> decided = PackagesFromMappings(s, out);
  if (s.package_list.row_count() == 0) return out;
  std::vector<std::vector<StringId>> of_process = ProcessPackages(s);

  // The (callsite, upid) pairs samples use, each once.
  std::set<std::pair<uint32_t, uint32_t>> used;
  auto add = [&](std::optional<uint32_t> callsite, std::optional<uint32_t> upid) {
    if (callsite && upid && *upid < of_process.size() && !of_process[*upid].empty())
      used.insert({*callsite, *upid});
  };
  const auto& allocs = s.profile.heap_profile_allocation;
  for (uint32_t i = 0; i < allocs.row_count(); ++i) add(allocs.callsite_id[i], allocs.upid[i]);
  const auto& perf = s.profile.perf_sample;
  for (uint32_t i = 0; i < perf.row_count(); ++i)
    add(perf.callsite_id.Get(i), s.thread.upid.Get(perf.utid[i]));
  const auto& cpu = s.profile.cpu_profile_stack_sample;
  for (uint32_t i = 0; i < cpu.row_count(); ++i)
    add(cpu.callsite_id[i], s.thread.upid.Get(cpu.utid[i]));
  const auto& oome = s.profile.heap_graph_thread_callsite;
  for (uint32_t i = 0; i < oome.row_count(); ++i)
    add(oome.callsite_id.Get(i), s.thread.upid.Get(oome.utid[i]));

  // Walk each pair up to the root; a (callsite, upid) already walked means
  // its ancestors are done too.
  const auto& callsites = s.profile.stack_profile_callsite;
  std::set<std::pair<uint32_t, uint32_t>> walked;
  for (auto [callsite, upid] : used) {
    std::optional<uint32_t> at = callsite;
    while (at && *at < callsites.row_count() && walked.insert({*at, upid}).second) {
      uint32_t frame = callsites.frame_id[*at];
      if (frame < out.packages.size() && !decided[frame])
        out.packages[frame].insert(out.packages[frame].end(), of_process[upid].begin(),
                                   of_process[upid].end());
      at = callsites.parent_id.Get(*at);
    }
  }
  for (auto& list : out.packages) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return out;
}

}  // namespace fathom
