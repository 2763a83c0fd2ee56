// The agent's argument string, tiallocsample's "sample_rate,stack_depth_limit,log_path"
// plus an optional fourth field choosing the sampling mode.
#pragma once

#include <cstdint>
#include <string>

namespace fathom::jvmti {

enum class SampleMode {
  kAuto,   // bytes when the VM can (JDK 11+ HotSpot), else count
  kCount,  // every sample_rate-th allocation reported by VMObjectAlloc
  kBytes,  // SampledObjectAlloc with a mean interval of sample_rate bytes
};

struct AgentOptions {
  int64_t sample_rate = 0;
  int32_t stack_depth_limit = 0;
  std::string log_path;
  SampleMode mode = SampleMode::kAuto;
};

// Returns an empty string on success, else what is wrong with `args`.
std::string ParseAgentOptions(const char* args, AgentOptions* out);

}  // namespace fathom::jvmti
