#include "core/import/process_args.h"

#include "core/import/args_tracker.h"

namespace fathom {

void ProcessArgs::SetBool(uint32_t upid, const char* key, bool value) {
  auto& args = pending_[upid];
  for (auto& [k, v] : args) {
    if (k == key) {
      v = value;
      return;
    }
  }
  args.emplace_back(key, value);
}

void ProcessArgs::Flush() {
  for (const auto& [upid, args] : pending_) {
    auto set = ctx_->args_tracker->NewSet();
    for (const auto& [key, value] : args) set.AddBool(key, value);
    auto& processes = ctx_->storage->process;
    if (auto id = set.CommitMerged(processes.arg_set_id.Get(upid)))
      processes.arg_set_id.Set(upid, *id);
  }
  pending_.clear();
}

}  // namespace fathom
