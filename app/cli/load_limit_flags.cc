#include "app/cli/load_limit_flags.h"

#include <algorithm>
#include <cstdlib>

namespace fathom::cli {
namespace {

// A whole number from 1 to `max`.
bool ParsePositive(const std::string& s, uint64_t max, uint64_t* out) {
  if (s.empty() || s.size() > 19) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  uint64_t v = std::strtoull(s.c_str(), nullptr, 10);
  if (v == 0 || v > max) return false;
  *out = v;
  return true;
}

}  // namespace

namespace {

// Walks `args` up to a "--" (what follows is a program's own command line),
// letting `take(flag, &i)` consume the flags it knows; it may step `i` past
// a flag's value. Every other argument stays in `args`, in order.
template <typename Take>
Status TakeFlags(std::vector<std::string>* args, Take take) {
  std::vector<std::string> rest;
  for (size_t i = 0; i < args->size(); ++i) {
    const std::string& a = (*args)[i];
    if (a == "--") {
      rest.insert(rest.end(), args->begin() + static_cast<std::ptrdiff_t>(i), args->end());
      break;
    }
    Result<bool> taken = take(a, &i);
    if (!taken.ok()) return taken.status();
    if (!*taken) rest.push_back(a);
  }
  *args = std::move(rest);
  return Status::Ok();
}

}  // namespace

Status TakeLoadLimitFlags(std::vector<std::string>* args, LoadLimits* limits) {
  return TakeFlags(args, [&](const std::string& a, size_t* i) -> Result<bool> {
    bool is_limit = a == "--max-inflate-ratio" || a == "--max-archive-depth" ||
                    a == "--max-compressed-nesting" || a == "--max-packet-mb" ||
                    a == "--max-container-mb" || a == "--max-annotation-key-mb";
    if (!is_limit) return false;
    uint64_t v = 0;
    if (*i + 1 >= args->size() || !ParsePositive((*args)[*i + 1], 1ull << 40, &v))
      return ErrorStatus(a + " takes a whole number of at least 1");
    ++*i;
    if (a == "--max-inflate-ratio") limits->max_inflate_ratio = v;
    if (a == "--max-archive-depth")
      limits->max_archive_depth = static_cast<int>(std::min<uint64_t>(v, 1 << 20));
    if (a == "--max-compressed-nesting")
      limits->max_compressed_nesting = static_cast<int>(std::min<uint64_t>(v, 1 << 20));
    if (a == "--max-packet-mb") limits->max_packet_bytes = v << 20;
    if (a == "--max-container-mb") limits->max_container_bytes = v << 20;
    if (a == "--max-annotation-key-mb") limits->max_annotation_key_bytes = v << 20;
    return true;
  });
}

Status TakeImportOptionFlags(std::vector<std::string>* args, ImportOptions* options) {
  return TakeFlags(args, [&](const std::string& a, size_t*) -> Result<bool> {
    if (a == "--crop-track-events") {
      options->crop_track_events = true;
      return true;
    }
    if (a == "--analyze-trace-proto-content") {
      options->analyze_trace_proto_content = true;
      return true;
    }
    return false;
  });
}

ImportOptions& CommandLineImportOptions() {
  static ImportOptions options;
  return options;
}

LoadLimits& CommandLineLoadLimits() {
  static LoadLimits limits;
  return limits;
}

const char* LoadLimitFlagsUsage() {
  return "load limits (any command that loads a trace; README \"Limits and safety\"):\n"
         "  --max-inflate-ratio N      compressed data may expand N x (default 200, past 64 MiB)\n"
         "  --max-archive-depth N      archives inside archives (default 256)\n"
         "  --max-compressed-nesting N compressed_packets inside compressed_packets (default 1)\n"
         "  --max-packet-mb N          one TracePacket (default 256)\n"
         "  --max-container-mb N       an HTML page or atrace output read whole (default 2048)\n"
         "  --max-annotation-key-mb N  key bytes one debug annotation writes (default 64)\n"
         "import options (as upstream trace_processor_shell's flags; off by default):\n"
         "  --crop-track-events        drop TrackEvents before the trace's range of interest\n"
         "  --analyze-trace-proto-content  add event.category/event.name arg sets for\n"
         "                             TrackEvents\n";
}

}  // namespace fathom::cli
