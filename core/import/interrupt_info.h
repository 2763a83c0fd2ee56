// TracePacket.interrupt_info: the kernel's IRQ number -> name mappings
// (the _linux_interrupt_mapping table that linux.irqs reads).
#pragma once

#include <cstdint>

#include "core/import/proto_decoder.h"
#include "core/storage/trace_storage.h"

namespace fathom {

// Upstream's field numbers (Fathom's protos do not carry the message):
// TracePacket.interrupt_info = 130; InterruptInfo.irq_mapping = 1;
// IrqMapping.irq_id = 1, IrqMapping.name = 2. Read from the difftest trace
// stdlib_linux/linux_interrupt_mapping (names from its textproto, numbers
// from its binary).
inline constexpr uint32_t kInterruptInfoFieldNumber = 130;

// Adds the packet's mappings, in file order. As upstream, a mapping without
// an irq id or a name is dropped, and the first name of an irq on a machine
// stands. Returns false on a malformed payload.
bool ParseInterruptInfo(TraceStorage* storage, uint32_t machine, proto::Bytes payload);

}  // namespace fathom
