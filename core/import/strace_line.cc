#include "core/import/strace_line.h"

namespace fathom {
namespace {

using Kind = StraceLine::Kind;
constexpr std::string_view kUnfinished = "<unfinished ...>";
constexpr std::string_view kResumedOpen = "<... ";
constexpr std::string_view kResumedClose = " resumed>";

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// Splits off the next space-separated word (strace separates its columns
// with spaces; a tab makes the line unreadable, as upstream).
std::string_view NextWord(std::string_view* s) {
  size_t end = s->find(' ');
  std::string_view word = s->substr(0, end);
  *s = end == std::string_view::npos ? std::string_view() : s->substr(end);
  while (!s->empty() && s->front() == ' ') s->remove_prefix(1);
  return word;
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!IsDigit(c)) return false;
  return true;
}

// "-ttt" time: "SECONDS[.FRACTION]" -> ns, exactly (no floating point).
bool ParseEpochTime(std::string_view s, int64_t* ns) {
  size_t dot = s.find('.');
  std::string_view sec = s.substr(0, dot);
  std::string_view frac = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  if (!AllDigits(sec) || sec.size() > 10 || (dot != std::string_view::npos && !AllDigits(frac)))
    return false;
  int64_t v = 0;
  for (char c : sec) v = v * 10 + (c - '0');
  int64_t f = 0;
  for (size_t i = 0; i < 9; ++i) f = f * 10 + (i < frac.size() ? frac[i] - '0' : 0);
  *ns = v * 1000000000 + f;
  return true;
}

// "-t"/"-tt" time of day: "HH:MM:SS[.FRACTION]".
bool IsTimeOfDay(std::string_view s) {
  size_t colons = 0;
  for (char c : s) {
    if (c == ':')
      ++colons;
    else if (!IsDigit(c) && c != '.')
      return false;
  }
  return colons == 2 && IsDigit(s.front());
}

// The syscall part after the time. Returns false when it is none.
bool ParseSyscall(std::string_view body, StraceLine* out) {
  body = Trim(body);
  bool unfinished = body.size() >= kUnfinished.size() &&
                    body.substr(body.size() - kUnfinished.size()) == kUnfinished;
  if (unfinished) body = Trim(body.substr(0, body.size() - kUnfinished.size()));
  std::string_view rest;
  if (body.substr(0, kResumedOpen.size()) == kResumedOpen) {
    size_t close = body.find(kResumedClose);
    if (close == std::string_view::npos) return false;
    out->name = body.substr(kResumedOpen.size(), close - kResumedOpen.size());
    rest = body.substr(close + kResumedClose.size());
    out->kind = unfinished ? Kind::kResumedUnfinished : Kind::kResumed;
    if (unfinished) {
      out->args = Trim(rest);
      return true;
    }
  } else {
    size_t paren = body.find('(');
    if (paren == std::string_view::npos || paren == 0) return false;
    out->name = body.substr(0, paren);
    rest = body.substr(paren + 1);
    out->kind = unfinished ? Kind::kUnfinished : Kind::kComplete;
    if (unfinished) {
      // "read(3, <unfinished ...>": the arguments printed so far.
      std::string_view args = Trim(rest);
      if (!args.empty() && args.back() == ',') args = Trim(args.substr(0, args.size() - 1));
      out->args = args;
      return true;
    }
  }
  // "args) = ret": the result follows the line's last '=', the arguments end
  // at the last ')' before it (so "w("a) = b") = 1" keeps its string whole).
  size_t eq = rest.rfind('=');
  if (eq == std::string_view::npos) return false;
  size_t close = rest.substr(0, eq).rfind(')');
  if (close == std::string_view::npos) return false;
  out->args = Trim(rest.substr(0, close));
  out->ret = Trim(rest.substr(eq + 1));
  return true;
}

}  // namespace

StraceLine ParseStraceLine(std::string_view line) {
  StraceLine out;
  std::string_view rest = line;
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  std::string_view first = NextWord(&rest);
  bool has_pid = AllDigits(first) && first.size() <= 10;
  std::string_view time = has_pid ? NextWord(&rest) : first;
  if (has_pid && !ParseEpochTime(time, &out.ts)) {
    if (IsTimeOfDay(time) && ParseSyscall(rest, &out))
      out.kind = Kind::kTimeOfDay;
    else
      out.kind = Kind::kNotSyscall;
    return out;
  }
  if (!has_pid) {
    bool epoch = ParseEpochTime(time, &out.ts);
    if ((epoch || IsTimeOfDay(time)) && ParseSyscall(rest, &out))
      out.kind = Kind::kMissingPid;
    else
      out.kind = Kind::kNotSyscall;
    return out;
  }
  uint64_t pid = 0;
  for (char c : first) pid = pid * 10 + static_cast<uint64_t>(c - '0');
  if (pid > UINT32_MAX || !ParseSyscall(rest, &out)) {
    out.kind = Kind::kNotSyscall;
    return out;
  }
  out.pid = static_cast<uint32_t>(pid);
  return out;
}

bool LooksLikeStrace(std::string_view head) {
  std::string_view line = head.substr(0, head.find('\n'));
  StraceLine l = ParseStraceLine(line);
  return l.kind != Kind::kNotSyscall && l.kind != Kind::kTimeOfDay;
}

}  // namespace fathom
