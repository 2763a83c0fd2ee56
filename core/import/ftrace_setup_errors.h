// The ftrace_setup_errors stat and its import logs: what went wrong when the
// ftrace data source set the kernel up, as its START_OF_TRACE FtraceStats
// packet reports it.
#pragma once

#include <string>
#include <vector>

#include "core/import/proto_decoder.h"

namespace fathom {

// The setup errors an FtraceStats payload reports, each as the message of its
// import log, in the reference's order (checked on variant traces): every
// failed event ("Ftrace event failed: group/name"), every unknown one
// ("Ftrace event unknown: ..."), then a non-empty atrace error text
// ("Atrace failures: ...") and exclusive feature error ("Ftrace exclusive
// feature error: ..."), whatever their order in the packet. Empty unless the
// packet is the start-of-trace one (the end-of-trace packet repeats the same
// lists).
//
// As upstream, a sequence is counted once, for the first such packet in file
// order that reports any error; later ones on the same sequence are ignored,
// packets on other sequences add up.
std::vector<std::string> FtraceSetupErrors(proto::Bytes payload);

}  // namespace fathom
