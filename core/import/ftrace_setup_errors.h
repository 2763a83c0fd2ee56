// The ftrace_setup_errors stat: what went wrong when the ftrace data source
// set the kernel up, as its START_OF_TRACE FtraceStats packet reports it.
#pragma once

#include <cstdint>

#include "core/import/proto_decoder.h"

namespace fathom {

// The setup errors an FtraceStats payload reports: one per unknown or failed
// ftrace event, one for a non-empty atrace error text and one for a
// non-empty exclusive feature error. 0 unless the packet is the start-of-trace
// one (the end-of-trace packet repeats the same lists).
//
// As upstream (checked on variant traces), a sequence is counted once, for
// the first such packet in file order that reports any error; later ones on
// the same sequence are ignored, packets on other sequences add up.
int64_t FtraceSetupErrors(proto::Bytes payload);

}  // namespace fathom
