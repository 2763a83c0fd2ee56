// Args of process rows (is_kthread from ProcessTree, is_peak_rss_resettable
// from ProcessStats). A later value of a key replaces the earlier one, and a
// process's set is written once, when the import ends, with the last value
// of each key (upstream keeps no intermediate sets either).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/import/trace_context.h"

namespace fathom {

class ProcessArgs {
 public:
  explicit ProcessArgs(TraceContext* ctx) : ctx_(ctx) {}

  void SetBool(uint32_t upid, const char* key, bool value);
  // Writes each process's set (in upid order) and sets process.arg_set_id.
  void Flush();

 private:
  TraceContext* ctx_;
  // upid -> (key, value), keys in first-seen order.
  std::map<uint32_t, std::vector<std::pair<std::string, bool>>> pending_;
};

}  // namespace fathom
