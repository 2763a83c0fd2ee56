#include "core/import/ftrace_setup_errors.h"

#include "perfetto/trace/ftrace/ftrace_stats.pb.h"

namespace fathom {

int64_t FtraceSetupErrors(proto::Bytes payload) {
  using FS = perfetto::protos::FtraceStats;
  bool start = false;
  int64_t errors = 0;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case FS::kPhaseFieldNumber:
        start = f.int_value == FS::START_OF_TRACE;
        break;
      case FS::kUnknownFtraceEventsFieldNumber:
      case FS::kFailedFtraceEventsFieldNumber:
        ++errors;
        break;
      case FS::kAtraceErrorsFieldNumber:
      case FS::kExclusiveFeatureErrorFieldNumber:
        if (f.bytes.size != 0) ++errors;
        break;
    }
  }
  return start && !d.error() ? errors : 0;
}

}  // namespace fathom
