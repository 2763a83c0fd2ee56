#include "device/jvmti/agent_options.h"

#include <charconv>
#include <string_view>
#include <vector>

namespace fathom::jvmti {
namespace {

bool ParsePositive(std::string_view s, int64_t* v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && p == s.data() + s.size() && *v > 0;
}

}  // namespace

std::string ParseAgentOptions(const char* args, AgentOptions* out) {
  const char kUsage[] =
      "expected sample_rate,stack_depth_limit,log_path[,auto|count|bytes] (e.g. "
      "524288,64,/tmp/alloc.log)";
  std::string_view a = args ? args : "";
  // The path may contain commas: rate and depth come first, the mode last
  // only when it is one of the known words.
  std::vector<std::string_view> f;
  for (int i = 0; i < 2; ++i) {
    size_t c = a.find(',');
    if (c == std::string_view::npos) return std::string("too few arguments: ") + kUsage;
    f.push_back(a.substr(0, c));
    a = a.substr(c + 1);
  }
  size_t c = a.rfind(',');
  if (c != std::string_view::npos) {
    std::string_view m = a.substr(c + 1);
    if (m == "auto" || m == "count" || m == "bytes") {
      out->mode = m == "count"   ? SampleMode::kCount
                  : m == "bytes" ? SampleMode::kBytes
                                 : SampleMode::kAuto;
      a = a.substr(0, c);
    }
  }
  int64_t depth = 0;
  if (!ParsePositive(f[0], &out->sample_rate))
    return "sample_rate must be a positive integer, got \"" + std::string(f[0]) + "\"; " + kUsage;
  if (!ParsePositive(f[1], &depth) || depth > 4096)
    return "stack_depth_limit must be 1..4096, got \"" + std::string(f[1]) + "\"; " + kUsage;
  out->stack_depth_limit = static_cast<int32_t>(depth);
  if (a.empty()) return std::string("log_path is empty; ") + kUsage;
  out->log_path = std::string(a);
  return {};
}

}  // namespace fathom::jvmti
