// Problems found while tokenizing or parsing (a bad compressed payload, a
// packet dropped by a limit): each names the source and the byte offset in
// it. A kind keeps its first few lines and counts the rest, so a file with a
// million bad packets is reported in a few lines, not a million. The loader
// turns them into LoadReport warnings.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fathom {

class LoadProblems {
 public:
  static constexpr size_t kLinesPerKind = 10;

  // The source whose bytes are being tokenized now (offsets are within it).
  void set_source(const std::string& name) { source_ = name; }

  // `kind` groups lines for the cap ("compressed_packets"); `what` is the text.
  void Add(const std::string& kind, uint64_t offset, const std::string& what) {
    AddLine(kind, source_ + ": byte offset " + std::to_string(offset) + ": " + what);
    last_offset_ = offset;
  }
  // The same for a problem whose source is not the one being tokenized now.
  void AddIn(const std::string& source, const std::string& kind, uint64_t offset,
             const std::string& what) {
    AddLine(kind, source + ": byte offset " + std::to_string(offset) + ": " + what);
  }
  const std::string& source() const { return source_; }
  // The offset named by the last Add, so that a stat counted for the same
  // problem is not reported twice.
  std::optional<uint64_t> last_offset() const { return last_offset_; }

  // A problem found while parsing sorted events, which no longer know their
  // byte offset: named by the event's timestamp when it has one.
  void AddParsed(const std::string& kind, std::optional<int64_t> ts, const std::string& what) {
    AddLine(kind, source_ + (ts ? ": at ts " + std::to_string(*ts) : std::string()) + ": " + what);
  }

  // Every kept line in the order found, then one line per kind that had more.
  std::vector<std::string> Lines() const {
    std::vector<std::string> out;
    for (const auto& [kind, i] : order_) out.push_back(kinds_.at(kind).lines[i]);
    for (const auto& [kind, k] : kinds_)
      if (k.more)
        out.push_back(std::to_string(k.more) + " more problems of the kind '" + kind +
                      "' (the first " + std::to_string(kLinesPerKind) + " are listed)");
    return out;
  }

 private:
  void AddLine(const std::string& kind, std::string line) {
    Kind& k = kinds_[kind];
    if (k.lines.size() < kLinesPerKind) {
      k.lines.push_back(std::move(line));
      order_.push_back({kind, k.lines.size() - 1});
    } else {
      ++k.more;
    }
  }

  struct Kind {
    std::vector<std::string> lines;
    uint64_t more = 0;
  };
  std::string source_ = "trace";
  std::optional<uint64_t> last_offset_;
  std::map<std::string, Kind> kinds_;
  std::vector<std::pair<std::string, size_t>> order_;
};

}  // namespace fathom
