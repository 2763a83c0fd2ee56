#include "core/import/ftrace_setup_errors.h"

#include "perfetto/trace/ftrace/ftrace_stats.pb.h"

namespace fathom {

std::vector<std::string> FtraceSetupErrors(proto::Bytes payload) {
  using FS = perfetto::protos::FtraceStats;
  bool start = false;
  std::vector<std::string> failed, unknown, atrace, exclusive;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case FS::kPhaseFieldNumber:
        start = f.int_value == FS::START_OF_TRACE;
        break;
      case FS::kFailedFtraceEventsFieldNumber:
        failed.push_back("Ftrace event failed: " + std::string(f.as_string()));
        break;
      case FS::kUnknownFtraceEventsFieldNumber:
        unknown.push_back("Ftrace event unknown: " + std::string(f.as_string()));
        break;
      case FS::kAtraceErrorsFieldNumber:
        if (f.bytes.size != 0) atrace.push_back("Atrace failures: " + std::string(f.as_string()));
        break;
      case FS::kExclusiveFeatureErrorFieldNumber:
        if (f.bytes.size != 0)
          exclusive.push_back("Ftrace exclusive feature error: " + std::string(f.as_string()));
        break;
    }
  }
  if (!start || d.error()) return {};
  for (auto* more : {&unknown, &atrace, &exclusive})
    failed.insert(failed.end(), more->begin(), more->end());
  return failed;
}

}  // namespace fathom
