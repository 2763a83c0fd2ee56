// How a diff-test answer is compared with upstream's expected.out: the same
// normalisation upstream's runner applies (drop leading blank lines, strip
// every line, CRLF -> LF, one trailing newline).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/import/import_options.h"

namespace fathom::conformance {

// Upstream's runner loads every case with --analyze-trace-proto-content
// --crop-track-events (and --extra-checks, which only adds checks), so the
// expected outputs hold what those flags import.
inline ImportOptions UpstreamRunnerOptions() {
  ImportOptions o;
  o.crop_track_events = true;
  o.analyze_trace_proto_content = true;
  return o;
}

inline std::string ReadWholeFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string NormaliseDiffOutput(const std::string& s) {
  std::vector<std::string> lines;
  std::stringstream ss(s);
  std::string line;
  while (std::getline(ss, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t b = line.find_first_not_of(" \t\r\n");
    size_t e = line.find_last_not_of(" \t\r\n");
    lines.push_back(b == std::string::npos ? "" : line.substr(b, e - b + 1));
  }
  size_t first = 0;
  while (first < lines.size() && lines[first].empty()) ++first;
  std::string out;
  for (size_t i = first; i < lines.size(); ++i) out += lines[i] + "\n";
  while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n')
    out.pop_back();
  return out;
}

}  // namespace fathom::conformance
