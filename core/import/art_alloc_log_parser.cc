#include "core/import/art_alloc_log_parser.h"

#include <charconv>
#include <cmath>

#include "core/base/jvm_types.h"

namespace fathom {
namespace {

constexpr size_t kMaxMalformedKept = 1000;

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  if (s.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// "N,rest" -> N and rest.
bool SplitKey(std::string_view s, int64_t* key, std::string_view* rest) {
  size_t comma = s.find(',');
  if (comma == std::string_view::npos) return false;
  auto k = ParseInt(s.substr(0, comma));
  if (!k || *k < 0) return false;
  *key = *k;
  *rest = s.substr(comma + 1);
  return true;
}

}  // namespace

std::optional<ArtAllocType> ParseArtAllocType(std::string_view t) {
  // Thread names may hold any character, so the fields are found from the end.
  constexpr std::string_view kThread = "jthread[", kClass = "], jclass[", kSize = "], size[";
  if (t.substr(0, kThread.size()) != kThread) return std::nullopt;
  size_t size_at = t.rfind(kSize);
  if (size_at == std::string_view::npos) return std::nullopt;
  size_t class_at = t.rfind(kClass, size_at);
  if (class_at == std::string_view::npos || class_at < kThread.size()) return std::nullopt;
  ArtAllocType r;
  r.thread = std::string(t.substr(kThread.size(), class_at - kThread.size()));
  std::string_view cls = t.substr(class_at + kClass.size(), size_at - class_at - kClass.size());
  size_t file_at = cls.find(" file: ");
  if (file_at == std::string_view::npos) return std::nullopt;
  r.class_signature = std::string(cls.substr(0, file_at));
  r.source_file = std::string(cls.substr(file_at + 7));
  std::string_view size = t.substr(size_at + kSize.size());
  size_t end = size.find_first_of(",]");
  if (end == std::string_view::npos) return std::nullopt;
  auto s = ParseInt(size.substr(0, end));
  if (!s || *s < 0 || r.class_signature.empty()) return std::nullopt;
  r.size = *s;
  return r;
}

std::string JavaClassDisplayName(std::string_view sig) {
  size_t dims = 0;
  while (dims < sig.size() && sig[dims] == '[') ++dims;
  std::string_view elem = sig.substr(dims);
  std::string name;
  if (elem.size() >= 2 && elem.front() == 'L' && elem.back() == ';') {
    name = std::string(elem.substr(1, elem.size() - 2));
    for (char& c : name)
      if (c == '/') c = '.';
  } else if (elem.size() == 1) {
    const auto primitive = JvmPrimitiveTypeName(elem[0]);
    name = primitive ? std::string(*primitive) : std::string(elem);
  } else {
    name = std::string(elem);  // not a signature: keep it as written
  }
  for (size_t i = 0; i < dims; ++i) name += "[]";
  return name;
}

double ArtSampleWeight(const ArtAllocLogHeader& h, int64_t size) {
  if (h.rate <= 0) return 1;
  if (h.mode == ArtAllocLogHeader::kCount) return static_cast<double>(h.rate);
  if (h.mode == ArtAllocLogHeader::kBytes) {
    double p = -std::expm1(-static_cast<double>(size) / static_cast<double>(h.rate));
    return p > 0 ? 1 / p : 1;
  }
  return 1;
}

bool ArtAllocLogParser::Bad() {
  if (malformed_.size() < kMaxMalformedKept) malformed_.push_back(line_no_);
  ++malformed_count_;
  return false;
}

void ArtAllocLogParser::ParseComment(std::string_view line) {
  line.remove_prefix(1);
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  bool is_header = line.substr(0, 12) == "fathom-jvmti";
  bool is_end = line.substr(0, 3) == "end";
  if (!is_header && !is_end) return;
  if (is_header) header_.present = true;
  if (is_end) header_.complete = true;
  while (!line.empty()) {
    size_t sp = line.find(' ');
    std::string_view word = line.substr(0, sp);
    line = sp == std::string_view::npos ? std::string_view() : line.substr(sp + 1);
    size_t eq = word.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view k = word.substr(0, eq), v = word.substr(eq + 1);
    if (is_header && k == "process") {  // the last field: the rest of the line
      header_.process = std::string(v);
      if (!line.empty()) header_.process.append(1, ' ').append(line);
      break;
    }
    auto n = ParseInt(v);
    if (is_end) {
      if (k == "ts" && n) header_.end_ts = n;
      continue;
    }
    if (k == "mode") {
      header_.mode = v == "count"   ? ArtAllocLogHeader::kCount
                     : v == "bytes" ? ArtAllocLogHeader::kBytes
                                    : ArtAllocLogHeader::kUnknown;
    } else if (k == "rate" && n) {
      header_.rate = *n;
    } else if (k == "pid" && n) {
      header_.pid = n;
    } else if (k == "ts" && n) {
      header_.ts = n;
    }
  }
}

bool ArtAllocLogParser::ParseLine(std::string_view line) {
  ++line_no_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty()) return true;
  int64_t key = 0;
  std::string_view rest;
  switch (line.front()) {
    case '#':
      ParseComment(line);
      return true;
    case '+': {
      if (!SplitKey(line.substr(1), &key, &rest) || rest.empty()) return Bad();
      if (rest.substr(0, 8) == "jthread[") {
        auto t = ParseArtAllocType(rest);
        if (!t) return Bad();
        types_[key] = std::move(*t);
      } else {
        frames_[key] = std::string(rest);
      }
      return true;
    }
    case '=': {
      if (!SplitKey(line.substr(1), &key, &rest)) return Bad();
      std::vector<int64_t> ids;
      while (!rest.empty()) {
        size_t semi = rest.find(';');
        auto id = ParseInt(rest.substr(0, semi));
        if (!id) return Bad();
        ids.push_back(*id);
        rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
      }
      // The first id is the allocation's TTS, the rest are frames; all must
      // have been defined before (the writer always emits keys first).
      if (ids.empty() || !types_.count(ids[0])) return Bad();
      for (size_t i = 1; i < ids.size(); ++i)
        if (!frames_.count(ids[i])) return Bad();
      stacks_[key] = std::move(ids);
      return true;
    }
    default: {
      auto id = ParseInt(line);
      if (!id || !stacks_.count(*id)) return Bad();
      auto [it, added] = sample_index_.try_emplace(*id, sample_order_.size());
      if (added) sample_order_.emplace_back(*id, 0);
      ++sample_order_[it->second].second;
      ++total_samples_;
      return true;
    }
  }
}

const std::vector<int64_t>* ArtAllocLogParser::Stack(int64_t id) const {
  auto it = stacks_.find(id);
  return it == stacks_.end() ? nullptr : &it->second;
}

const ArtAllocType* ArtAllocLogParser::Type(int64_t key) const {
  auto it = types_.find(key);
  return it == types_.end() ? nullptr : &it->second;
}

const std::string* ArtAllocLogParser::Frame(int64_t key) const {
  auto it = frames_.find(key);
  return it == frames_.end() ? nullptr : &it->second;
}

}  // namespace fathom
