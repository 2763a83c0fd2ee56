// Rows of the `cpu` table for the CPUs events ran on.
#pragma once

namespace fathom {

class TraceStorage;

// As upstream, a host CPU that has sched or ftrace rows gets its `cpu` row
// (id = ucpu = cpu) even without cpuinfo; CPUs nothing ran on stay out. One
// pass over the two tables' narrow cpu columns once the import ends.
void FillCpuRowsFromEvents(TraceStorage* storage);

}  // namespace fathom
