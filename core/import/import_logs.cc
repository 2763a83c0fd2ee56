#include "core/import/import_logs.h"

namespace fathom {

void LogImportProblem(TraceStorage* storage, Stat stat, std::optional<int64_t> ts,
                      ArgsTracker::Builder args) {
  storage->stats.Increment(stat);
  const StatInfo& info = GetStatInfo(stat);
  std::optional<uint32_t> set = args.Commit();
  storage->import_logs.Insert(TraceStorage::kTraceId, ts, storage->Intern(info.severity),
                              storage->Intern(info.name), set);
}

}  // namespace fathom
