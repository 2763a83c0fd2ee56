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

// The next field: the text before the next '|', or all that is left.
std::string_view Field(std::string_view* rest) {
  std::string_view field;
  if (NextField(rest, &field)) return field;
  field = *rest;
  *rest = {};
  return field;
}

// What upstream calls a slice begun without a name.
constexpr std::string_view kEmptySliceName = "[empty slice name]";

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
  if (phase == 'B') {
    // "B|tgid|name": the name is everything after the tgid, '|' included;
    // "B|tgid" and "B|tgid|" still begin a slice (upstream names it so).
    if (!NextField(&rest, &tgid_str)) {
      tgid_str = rest;
      rest = {};
    }
    if (!ParseInt(tgid_str, &out->tgid)) return SystraceParseResult::kFailure;
    out->name = rest.empty() ? kEmptySliceName : rest;
    return SystraceParseResult::kOk;
  }
  // Only E may leave the tgid out.
  if (!NextField(&rest, &tgid_str) || !ParseInt(tgid_str, &out->tgid))
    return SystraceParseResult::kFailure;
  // Every other phase has fixed fields: each ends at the next '|' (a name
  // never holds one) and what follows the last field is ignored.
  switch (phase) {
    case 'I':
      out->name = Field(&rest);
      return out->name.empty() ? SystraceParseResult::kFailure : SystraceParseResult::kOk;
    case 'C': {
      std::string_view value;
      if (!NextField(&rest, &out->name) || out->name.empty()) return SystraceParseResult::kFailure;
      if (NextField(&rest, &value)) {
        out->category = rest;
      } else {
        value = rest;
      }
      if (!ParseNumber(value, &out->value)) return SystraceParseResult::kFailure;
      return SystraceParseResult::kOk;
    }
    case 'S':
    case 'F':
      out->name = Field(&rest);
      if (out->name.empty() || !ParseInt(Field(&rest), &out->cookie))
        return SystraceParseResult::kFailure;
      return SystraceParseResult::kOk;
    case 'N':
      out->track = Field(&rest);
      out->name = Field(&rest);
      if (out->track.empty() || out->name.empty()) return SystraceParseResult::kFailure;
      return SystraceParseResult::kOk;
    case 'G':
      out->track = Field(&rest);
      out->name = Field(&rest);
      if (out->track.empty() || out->name.empty() || !ParseInt(Field(&rest), &out->cookie))
        return SystraceParseResult::kFailure;
      return SystraceParseResult::kOk;
    case 'H': {
      // "H|tgid|track|name|cookie", or "H|tgid|track|cookie" without a name.
      out->track = Field(&rest);
      std::string_view cookie = Field(&rest);
      if (!rest.empty()) {
        out->name = cookie;
        cookie = Field(&rest);
      }
      if (!ParseInt(cookie, &out->cookie)) return SystraceParseResult::kFailure;
      return SystraceParseResult::kOk;
    }
  }
  return SystraceParseResult::kFailure;
}

}  // namespace fathom
