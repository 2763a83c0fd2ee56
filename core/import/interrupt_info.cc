#include "core/import/interrupt_info.h"

#include <optional>

namespace fathom {
namespace {

constexpr uint32_t kIrqMappingFieldNumber = 1;
constexpr uint32_t kIrqIdFieldNumber = 1;
constexpr uint32_t kIrqNameFieldNumber = 2;

bool Known(const InterruptMappingTable& t, int64_t irq, uint32_t machine) {
  for (uint32_t row = 0; row < t.row_count(); ++row)
    if (t.irq_id[row] == irq && t.machine_id[row] == machine) return true;
  return false;
}

}  // namespace

bool ParseInterruptInfo(TraceStorage* storage, uint32_t machine, proto::Bytes payload) {
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id != kIrqMappingFieldNumber || f.type != proto::WireType::kLengthDelimited) continue;
    std::optional<int64_t> irq;
    std::optional<StringId> name;
    proto::Decoder m(f.bytes);
    for (proto::Field g = m.Next(); g.valid(); g = m.Next()) {
      if (g.id == kIrqIdFieldNumber) irq = g.as_int64();
      if (g.id == kIrqNameFieldNumber) name = storage->Intern(g.as_string());
    }
    if (m.error()) return false;
    if (!irq || !name || Known(storage->interrupt_mapping, *irq, machine)) continue;
    storage->interrupt_mapping.Insert(*irq, *name, machine);
  }
  return !d.error();
}

}  // namespace fathom
