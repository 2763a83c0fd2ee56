#include "core/storage/cpu_rows.h"

#include <cstdint>
#include <vector>

#include "core/storage/trace_storage.h"

namespace fathom {
namespace {

// Marks every value of a 2-byte cpu column in `seen` (indexed by cpu).
template <typename Column>
void MarkCpus(const Column& cpus, uint32_t rows, std::vector<bool>* seen) {
  for (uint32_t r = 0; r < rows; ++r) {
    uint16_t c = cpus[r];
    if (c >= seen->size()) seen->resize(c + 1u, false);
    (*seen)[c] = true;
  }
}

}  // namespace

void FillCpuRowsFromEvents(TraceStorage* storage) {
  std::vector<bool> seen;
  MarkCpus(storage->sched.cpu, storage->sched.row_count(), &seen);
  MarkCpus(storage->ftrace_event.cpu, storage->ftrace_event.row_count(), &seen);
  for (uint32_t c = 0; c < seen.size(); ++c)
    if (seen[c]) storage->cpu.Ensure(c);
}

}  // namespace fathom
