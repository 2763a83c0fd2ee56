// Parser of the text log written by ART's tiallocsample JVMTI agent and by
// Fathom's own agent (device/jvmti), one line at a time, with no storage
// dependency so tests and tools can use it directly.
//
// The format (tiallocsample's README):
//   +N,jthread[T], jclass[SIG file: F], size[S, hex: 0xH]   key N = an allocation's
//                                                          thread, type and size (TTS)
//   +N,method(sig)ret                                      key N = a stack frame
//   =N,a;b;c                                               stack N = TTS a, then frames
//                                                          b, c… outermost first
//   N                                                      one sample of stack N
// Fathom's agent adds '#' comment lines: "# fathom-jvmti key=value …" says how
// it sampled (mode=count|bytes, rate=…, pid=…, process=…) and "# end …" closes
// a complete log. Unknown '#' lines are ignored.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fathom {

struct ArtAllocType {
  std::string thread;
  std::string class_signature;  // JNI form: "Ljava/lang/String;", "[I"
  std::string source_file;
  int64_t size = 0;
};

struct ArtAllocLogHeader {
  bool present = false;
  enum Mode { kUnknown, kCount, kBytes } mode = kUnknown;
  int64_t rate = 0;  // every rate-th allocation (kCount) or mean bytes between samples (kBytes)
  std::optional<int64_t> pid;
  std::string process;
  std::optional<int64_t> ts;      // boot-clock ns at the start of the log
  std::optional<int64_t> end_ts;  // ...and at its end ("# end")
  bool complete = false;          // an "# end" line was seen
};

class ArtAllocLogParser {
 public:
  // One line without its '\n' (a trailing '\r' is ignored). Returns false for
  // a malformed line (also recorded in malformed_lines()).
  bool ParseLine(std::string_view line);

  const ArtAllocLogHeader& header() const { return header_; }
  // Samples per stack id, in first-seen order of the stacks.
  const std::vector<std::pair<int64_t, int64_t>>& samples() const { return sample_order_; }
  // Stack id -> (TTS key, frame keys outermost first). Null when unknown.
  const std::vector<int64_t>* Stack(int64_t id) const;
  const ArtAllocType* Type(int64_t key) const;
  const std::string* Frame(int64_t key) const;
  uint64_t lines() const { return line_no_; }
  uint64_t total_samples() const { return total_samples_; }
  // 1-based numbers of malformed lines (the first 1000) and their total.
  const std::vector<uint64_t>& malformed_lines() const { return malformed_; }
  uint64_t malformed_count() const { return malformed_count_; }

 private:
  bool Bad();
  void ParseComment(std::string_view line);

  ArtAllocLogHeader header_;
  std::unordered_map<int64_t, ArtAllocType> types_;
  std::unordered_map<int64_t, std::string> frames_;
  std::unordered_map<int64_t, std::vector<int64_t>> stacks_;
  std::unordered_map<int64_t, size_t> sample_index_;
  std::vector<std::pair<int64_t, int64_t>> sample_order_;
  uint64_t line_no_ = 0;
  uint64_t total_samples_ = 0;
  std::vector<uint64_t> malformed_;
  uint64_t malformed_count_ = 0;
};

// Parses the TTS text "jthread[T], jclass[SIG file: F], size[S, hex: 0xH]".
std::optional<ArtAllocType> ParseArtAllocType(std::string_view text);
// "Ljava/lang/String;" -> "java.lang.String", "[[I" -> "int[][]".
std::string JavaClassDisplayName(std::string_view signature);
// Estimated allocations (count) one sample of `size` bytes stands for: rate in
// count mode; 1 / P(sampled) = 1 / (1 - exp(-size/rate)) in bytes mode
// (Poisson sampling with mean interval rate); 1 when the mode is unknown.
double ArtSampleWeight(const ArtAllocLogHeader& h, int64_t size);

}  // namespace fathom
