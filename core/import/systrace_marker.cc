#include "core/import/systrace_marker.h"

#include <charconv>
#include <cstdlib>
#include <string>

namespace fathom {
namespace {

bool ParseInt(std::string_view s, int64_t* out) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.remove_suffix(1);
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

bool ParseNumber(std::string_view s, double* out) {
  int64_t i;
  if (ParseInt(s, &i)) {
    *out = static_cast<double>(i);
    return true;
  }
  std::string tmp(s);
  char* end = nullptr;
  double d = strtod(tmp.c_str(), &end);
  if (tmp.empty() || end != tmp.c_str() + tmp.size()) return false;
  *out = d;
  return true;
}

// Splits off the text before the next '|'. Returns false when there is none.
bool NextField(std::string_view* rest, std::string_view* field) {
  size_t bar = rest->find('|');
  if (bar == std::string_view::npos) return false;
  *field = rest->substr(0, bar);
  rest->remove_prefix(bar + 1);
  return true;
}

// tgid field: may be empty (E|), else must be a number.
bool ParseTgid(std::string_view s, int64_t* tgid) {
  if (s.empty()) {
    *tgid = 0;
    return true;
  }
  return ParseInt(s, tgid);
}

}  // namespace

SystraceParseResult ParseSystraceMarker(std::string_view line, SystraceMarker* out) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\0')) line.remove_suffix(1);
  *out = SystraceMarker{};
  if (line.empty()) return SystraceParseResult::kUnsupported;
  char phase = line[0];
  if (std::string_view("BECSFINGH").find(phase) == std::string_view::npos)
    return SystraceParseResult::kUnsupported;
  if (line.size() >= 2 && line[1] != '|') return SystraceParseResult::kUnsupported;
  out->phase = phase;
  std::string_view rest = line.size() >= 2 ? line.substr(2) : std::string_view();
  std::string_view tgid_str;
  if (phase == 'E') {
    // "E", "E|", "E|tgid", "E|tgid|name..."
    if (!NextField(&rest, &tgid_str)) tgid_str = rest;
    if (!ParseTgid(tgid_str, &out->tgid)) out->tgid = 0;
    return SystraceParseResult::kOk;
  }
  if (!NextField(&rest, &tgid_str) || !ParseTgid(tgid_str, &out->tgid))
    return SystraceParseResult::kFailure;

  switch (phase) {
    case 'B':
    case 'I':
      out->name = rest;
      return SystraceParseResult::kOk;
    case 'C': {
      std::string_view value;
      if (!NextField(&rest, &out->name)) return SystraceParseResult::kFailure;
      if (NextField(&rest, &value)) {
        out->category = rest;
      } else {
        value = rest;
      }
      if (!ParseNumber(value, &out->value)) return SystraceParseResult::kFailure;
      return SystraceParseResult::kOk;
    }
    case 'S':
    case 'F': {
      size_t bar = rest.rfind('|');
      if (bar == std::string_view::npos) return SystraceParseResult::kFailure;
      out->name = rest.substr(0, bar);
      if (!ParseInt(rest.substr(bar + 1), &out->cookie)) return SystraceParseResult::kFailure;
      return SystraceParseResult::kOk;
    }
    case 'N':
      if (!NextField(&rest, &out->track)) return SystraceParseResult::kFailure;
      out->name = rest;
      return SystraceParseResult::kOk;
    case 'G':
    case 'H': {
      if (!NextField(&rest, &out->track)) return SystraceParseResult::kFailure;
      size_t bar = rest.rfind('|');
      std::string_view cookie = rest;
      if (bar != std::string_view::npos) {
        out->name = rest.substr(0, bar);
        cookie = rest.substr(bar + 1);
      } else if (phase == 'G') {
        return SystraceParseResult::kFailure;
      }
      if (!ParseInt(cookie, &out->cookie)) return SystraceParseResult::kFailure;
      return SystraceParseResult::kOk;
    }
  }
  return SystraceParseResult::kFailure;
}

}  // namespace fathom
