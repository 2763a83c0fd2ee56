#include "core/import/systrace_text_tokenizer.h"

#include <cctype>
#include <cstdlib>
#include <cstring>

#include "core/import/args_tracker.h"
#include "core/import/ftrace_parser.h"
#include "core/import/process_tracker.h"
#include "core/import/proto_decoder.h"
#include "perfetto/trace/ftrace/ftrace_event_bundle.pb.h"

namespace fathom {
namespace {

namespace pb = perfetto::protos;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// "key=value key2=value two" -> value of `key` (values end at the next " k=").
std::string_view Arg(std::string_view args, std::string_view key) {
  size_t pos = 0;
  while ((pos = args.find(key, pos)) != std::string_view::npos) {
    bool at_word = pos == 0 || args[pos - 1] == ' ';
    size_t eq = pos + key.size();
    if (at_word && eq < args.size() && args[eq] == '=') {
      size_t start = eq + 1;
      size_t end = args.find(' ', start);
      // A value may contain spaces (comm); it ends where the next "word=" starts.
      while (end != std::string_view::npos) {
        size_t next_eq = args.find('=', end + 1);
        size_t next_space = args.find(' ', end + 1);
        if (next_eq != std::string_view::npos &&
            (next_space == std::string_view::npos || next_eq < next_space))
          break;
        if (next_space == std::string_view::npos) {
          // Last token has no '=': part of this value only if not "==>".
          if (args.substr(end + 1) == "==>") break;
          end = std::string_view::npos;
          break;
        }
        if (args.substr(end + 1, 3) == "==>") break;
        end = next_space;
      }
      return args.substr(start, end == std::string_view::npos ? args.size() - start : end - start);
    }
    pos = eq;
  }
  return {};
}

// Leading decimal integer of `s` (0 when there is none), like strtoll
// without copying the text.
int64_t ToInt(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  bool neg = i < s.size() && s[i] == '-';
  if (neg || (i < s.size() && s[i] == '+')) ++i;
  uint64_t v = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i)
    v = v * 10 + static_cast<uint64_t>(s[i] - '0');
  // Negated in unsigned: wraps instead of overflowing on "-9223372036854775808".
  return static_cast<int64_t>(neg ? 0 - v : v);
}

// "0x1f" or "31" (binder flags and codes are printed in hex).
int64_t HexOrDecimal(std::string_view s) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    uint64_t v = 0;
    for (char c : s.substr(2)) {
      int d = isdigit(static_cast<unsigned char>(c)) ? c - '0'
              : isxdigit(static_cast<unsigned char>(c))
                  ? (tolower(static_cast<unsigned char>(c)) - 'a' + 10)
                  : -1;
      if (d < 0) break;
      v = v * 16 + static_cast<uint64_t>(d);
    }
    return static_cast<int64_t>(v);
  }
  return ToInt(s);
}

void PutVarint(std::string* o, uint64_t v) {
  while (v >= 0x80) {
    o->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  o->push_back(static_cast<char>(v));
}
void PutTag(std::string* o, uint32_t field, uint32_t wire_type) {
  PutVarint(o, (static_cast<uint64_t>(field) << 3) | wire_type);
}
// int32/int64/uint32 fields: negative values as 10-byte two's complement,
// as protobuf writes them.
void PutInt(std::string* o, uint32_t field, int64_t v) {
  PutTag(o, field, 0);
  PutVarint(o, static_cast<uint64_t>(v));
}
void PutStr(std::string* o, uint32_t field, std::string_view v) {
  PutTag(o, field, 2);
  PutVarint(o, v.size());
  o->append(v);
}

bool IsDigitChar(char c) { return c >= '0' && c <= '9'; }
bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// Length of "<digits>.<digits>: " at the start of `s`, or 0.
size_t TimestampLength(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && IsDigitChar(s[i])) ++i;
  if (i == 0 || i >= s.size() || s[i] != '.') return 0;
  size_t frac = ++i;
  while (i < s.size() && IsDigitChar(s[i])) ++i;
  if (i == frac || i + 1 >= s.size() || s[i] != ':' || !IsBlank(s[i + 1])) return 0;
  return i;
}

// Where the timestamp starts in the text after "[CPU]", as upstream reads it:
// blanks, then optionally the irq-flags column (three flag letters or '.',
// then one or two preempt/migrate counters: lowercase hex digits or '.'),
// blanks, then "<sec>.<frac>:". The flags need no blank after them, so
// "....316.1:" reads as flags "....3" and time 16.1, exactly as upstream.
size_t TimestampStart(std::string_view s, size_t* len) {
  size_t i = 0;
  while (i < s.size() && IsBlank(s[i])) ++i;
  auto is_flag = [](char c) {
    return c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  };
  auto is_counter = [](char c) { return c == '.' || IsDigitChar(c) || (c >= 'a' && c <= 'f'); };
  if (i + 4 <= s.size() && is_flag(s[i]) && is_flag(s[i + 1]) && is_flag(s[i + 2]) &&
      is_counter(s[i + 3])) {
    // Greedy first (a second counter), then without it.
    for (size_t flags : {size_t{5}, size_t{4}}) {
      if (flags == 5 && (i + 5 > s.size() || !is_counter(s[i + 4]))) continue;
      size_t j = i + flags;
      while (j < s.size() && IsBlank(s[j])) ++j;
      if ((*len = TimestampLength(s.substr(j))) != 0) return j;
    }
  }
  if ((*len = TimestampLength(s.substr(i))) != 0) return i;
  return std::string_view::npos;
}

// "<sec>.<frac>" -> ns the way upstream converts it: through a double,
// truncated (so "16.196740" is 16196739999 ns, as upstream reports it).
bool TextSecondsToNs(std::string_view text, int64_t* ns) {
  char buf[64];
  if (text.size() >= sizeof(buf)) return false;
  memcpy(buf, text.data(), text.size());
  buf[text.size()] = '\0';
  double v = strtod(buf, nullptr) * 1e9;
  // Past int64 nanoseconds (~292 years) is no timestamp: the line is no event.
  if (!(v < 9.2e18)) return false;
  *ns = static_cast<int64_t>(v);
  return true;
}

// Text task state ("S", "R+", "D|K") -> the pre-4.8 kernel bit layout the
// ftrace parser assumes when the kernel version is unknown.
int64_t PrevStateBits(std::string_view s) {
  int64_t bits = 0;
  for (char c : s) {
    switch (c) {
      case 'S':
        bits |= 0x1;
        break;
      case 'D':
        bits |= 0x2;
        break;
      case 'T':
        bits |= 0x4;
        break;
      case 't':
        bits |= 0x8;
        break;
      case 'X':
        bits |= 0x10;
        break;
      case 'Z':
        bits |= 0x20;
        break;
      case 'x':
        bits |= 0x40;
        break;
      case 'K':
        bits |= 0x80;
        break;
      case 'W':
        bits |= 0x100;
        break;
      case 'P':
        bits |= 0x200;
        break;
      case 'N':
        bits |= 0x400;
        break;
      case 'I':
        bits |= 0x402;
        break;
      case '+':
        bits |= 0x800;
        break;
      default:
        break;  // 'R', '|'
    }
  }
  return bits;
}

}  // namespace

bool SystraceLineToFtraceEvent(std::string_view line, std::string* out, uint32_t* cpu, int64_t* ts,
                               bool* generic, TextLineTask* task_out) {
  if (generic) *generic = false;
  line = Trim(line);
  if (line.empty() || line[0] == '#') return false;
  // "<comm>-<tid> [(<tgid>)] [<cpu>] [<flags>] <sec>.<usec>: <event>: <args>"
  size_t bracket = line.find(" [");
  while (bracket != std::string_view::npos &&
         !(bracket + 2 < line.size() && isdigit(static_cast<unsigned char>(line[bracket + 2]))))
    bracket = line.find(" [", bracket + 1);
  if (bracket == std::string_view::npos) return false;
  std::string_view task = Trim(line.substr(0, bracket));
  // A TGID column: "( 1234)", or "(-----)" when the kernel did not know it.
  std::optional<int64_t> tgid;
  if (!task.empty() && task.back() == ')') {
    size_t open = task.rfind('(');
    if (open == std::string_view::npos) return false;
    int64_t v = 0;
    if (ParseWholeInt(Trim(task.substr(open + 1, task.size() - open - 2)), &v)) tgid = v;
    task = Trim(task.substr(0, open));
  }
  size_t dash = task.rfind('-');
  if (dash == std::string_view::npos) return false;
  int64_t tid = ToInt(task.substr(dash + 1));
  if (task_out) *task_out = {tid, task.substr(0, dash), tgid};
  size_t close = line.find(']', bracket);
  if (close == std::string_view::npos) return false;
  *cpu = static_cast<uint32_t>(ToInt(line.substr(bracket + 2, close - bracket - 2)));
  if (*cpu >= kMaxCpus) return false;
  std::string_view rest = line.substr(close + 1);
  size_t ts_len = 0;
  size_t ts_at = TimestampStart(rest, &ts_len);
  if (ts_at == std::string_view::npos || !TextSecondsToNs(rest.substr(ts_at, ts_len), ts))
    return false;
  rest = rest.substr(ts_at + ts_len);
  rest = rest.substr(2);  // the ": " that ends the timestamp
  size_t name_end = rest.find(':');
  std::string_view name = Trim(rest.substr(0, name_end));
  std::string_view args = name_end == std::string_view::npos ? "" : Trim(rest.substr(name_end + 1));

  // Encoded by hand (field numbers from the generated classes): building
  // protobuf objects per line cost more than the rest of the import.
  using FE = pb::FtraceEvent;
  out->clear();
  PutInt(out, FE::kTimestampFieldNumber, *ts);
  PutInt(out, FE::kPidFieldNumber, static_cast<uint32_t>(tid));
  thread_local std::string sub;
  sub.clear();
  uint32_t event_field;
  if (name == "sched_switch") {
    using E = pb::SchedSwitchFtraceEvent;
    event_field = FE::kSchedSwitchFieldNumber;
    PutStr(&sub, E::kPrevCommFieldNumber, Arg(args, "prev_comm"));
    PutInt(&sub, E::kPrevPidFieldNumber, static_cast<int32_t>(ToInt(Arg(args, "prev_pid"))));
    PutInt(&sub, E::kPrevPrioFieldNumber, static_cast<int32_t>(ToInt(Arg(args, "prev_prio"))));
    PutInt(&sub, E::kPrevStateFieldNumber, PrevStateBits(Arg(args, "prev_state")));
    PutStr(&sub, E::kNextCommFieldNumber, Arg(args, "next_comm"));
    PutInt(&sub, E::kNextPidFieldNumber, static_cast<int32_t>(ToInt(Arg(args, "next_pid"))));
    PutInt(&sub, E::kNextPrioFieldNumber, static_cast<int32_t>(ToInt(Arg(args, "next_prio"))));
  } else if (name == "sched_wakeup" || name == "sched_waking" || name == "sched_wakeup_new") {
    // The three messages share field numbers 1..5 (comm, pid, prio, success, target_cpu).
    using E = pb::SchedWakeupFtraceEvent;
    static_assert(+E::kTargetCpuFieldNumber == +pb::SchedWakingFtraceEvent::kTargetCpuFieldNumber &&
                  +E::kTargetCpuFieldNumber ==
                      +pb::SchedWakeupNewFtraceEvent::kTargetCpuFieldNumber &&
                  +E::kCommFieldNumber == +pb::SchedWakingFtraceEvent::kCommFieldNumber &&
                  +E::kPrioFieldNumber == +pb::SchedWakingFtraceEvent::kPrioFieldNumber &&
                  +E::kPidFieldNumber == +pb::SchedWakingFtraceEvent::kPidFieldNumber);
    event_field = name == "sched_wakeup"   ? FE::kSchedWakeupFieldNumber
                  : name == "sched_waking" ? FE::kSchedWakingFieldNumber
                                           : FE::kSchedWakeupNewFieldNumber;
    PutStr(&sub, E::kCommFieldNumber, Arg(args, "comm"));
    PutInt(&sub, E::kPidFieldNumber, static_cast<int32_t>(ToInt(Arg(args, "pid"))));
    PutInt(&sub, E::kPrioFieldNumber, static_cast<int32_t>(ToInt(Arg(args, "prio"))));
    PutInt(&sub, E::kTargetCpuFieldNumber, static_cast<int32_t>(ToInt(Arg(args, "target_cpu"))));
  } else if (name == "cpu_frequency") {
    event_field = FE::kCpuFrequencyFieldNumber;
    PutInt(&sub, pb::CpuFrequencyFtraceEvent::kStateFieldNumber,
           static_cast<uint32_t>(ToInt(Arg(args, "state"))));
    PutInt(&sub, pb::CpuFrequencyFtraceEvent::kCpuIdFieldNumber,
           static_cast<uint32_t>(ToInt(Arg(args, "cpu_id"))));
  } else if (name == "cpu_idle") {
    event_field = FE::kCpuIdleFieldNumber;
    PutInt(&sub, pb::CpuIdleFtraceEvent::kStateFieldNumber,
           static_cast<uint32_t>(ToInt(Arg(args, "state"))));
    PutInt(&sub, pb::CpuIdleFtraceEvent::kCpuIdFieldNumber,
           static_cast<uint32_t>(ToInt(Arg(args, "cpu_id"))));
  } else if (name == "cpu_frequency_limits") {
    using E = pb::CpuFrequencyLimitsFtraceEvent;
    event_field = FE::kCpuFrequencyLimitsFieldNumber;
    // Kernels print the bounds as min=/max= or, later, min_freq=/max_freq=.
    auto either = [&](std::string_view a, std::string_view b) {
      std::string_view v = Arg(args, a);
      return static_cast<uint32_t>(ToInt(v.empty() ? Arg(args, b) : v));
    };
    PutInt(&sub, E::kMinFreqFieldNumber, either("min_freq", "min"));
    PutInt(&sub, E::kMaxFreqFieldNumber, either("max_freq", "max"));
    PutInt(&sub, E::kCpuIdFieldNumber, static_cast<uint32_t>(ToInt(Arg(args, "cpu_id"))));
  } else if (name == "sched_blocked_reason") {
    // The caller is a symbol in text (an address in the proto): only pid and
    // iowait carry over, which is what thread_state needs.
    using E = pb::SchedBlockedReasonFtraceEvent;
    event_field = FE::kSchedBlockedReasonFieldNumber;
    PutInt(&sub, E::kPidFieldNumber, static_cast<int32_t>(ToInt(Arg(args, "pid"))));
    PutInt(&sub, E::kIoWaitFieldNumber, static_cast<uint32_t>(ToInt(Arg(args, "iowait"))));
  } else if (name == "binder_transaction") {
    // "transaction=5149 dest_node=5143 dest_proc=521383 dest_thread=0 reply=0
    // flags=0x0 code=0x3"
    // Known difference: upstream's "code" arg keeps the code as written here
    // ("0x3", "12"); the proto path (and so Fathom) spells it "0x03".
    using E = pb::BinderTransactionFtraceEvent;
    event_field = FE::kBinderTransactionFieldNumber;
    PutInt(&sub, E::kDebugIdFieldNumber, static_cast<int32_t>(ToInt(Arg(args, "transaction"))));
    PutInt(&sub, E::kTargetNodeFieldNumber, static_cast<int32_t>(ToInt(Arg(args, "dest_node"))));
    PutInt(&sub, E::kToProcFieldNumber, static_cast<int32_t>(ToInt(Arg(args, "dest_proc"))));
    PutInt(&sub, E::kToThreadFieldNumber, static_cast<int32_t>(ToInt(Arg(args, "dest_thread"))));
    PutInt(&sub, E::kReplyFieldNumber, static_cast<int32_t>(ToInt(Arg(args, "reply"))));
    PutInt(&sub, E::kCodeFieldNumber, static_cast<uint32_t>(HexOrDecimal(Arg(args, "code"))));
    PutInt(&sub, E::kFlagsFieldNumber, static_cast<uint32_t>(HexOrDecimal(Arg(args, "flags"))));
  } else if (name == "binder_transaction_received") {
    event_field = FE::kBinderTransactionReceivedFieldNumber;
    PutInt(&sub, pb::BinderTransactionReceivedFtraceEvent::kDebugIdFieldNumber,
           static_cast<int32_t>(ToInt(Arg(args, "transaction"))));
  } else if (name == "binder_command" || name == "binder_return") {
    // "cmd=0x40406300 BC_TRANSACTION": the number, then its name.
    static_assert(+pb::BinderCommandFtraceEvent::kCmdFieldNumber ==
                  +pb::BinderReturnFtraceEvent::kCmdFieldNumber);
    event_field =
        name == "binder_command" ? FE::kBinderCommandFieldNumber : FE::kBinderReturnFieldNumber;
    std::string_view cmd = Arg(args, "cmd");
    PutInt(&sub, pb::BinderCommandFtraceEvent::kCmdFieldNumber,
           static_cast<uint32_t>(HexOrDecimal(cmd.substr(0, cmd.find(' ')))));
  } else if (name == "tracing_mark_write" || name == "print" || name == "0") {
    // atrace markers: "B|pid|name", "E", "C|pid|name|value", ...
    event_field = FE::kPrintFieldNumber;
    PutTag(&sub, pb::PrintFtraceEvent::kBufFieldNumber, 2);
    PutVarint(&sub, args.size() + 1);
    sub.append(args);
    sub.push_back('\n');
  } else {
    // Any other event: upstream keeps no row of it, only the line's task
    // (see ParseTextEvent); its name travels as a GenericFtraceEvent.
    if (name.empty()) return false;
    if (generic) *generic = true;
    event_field = FE::kGenericFieldNumber;
    PutStr(&sub, pb::GenericFtraceEvent::kEventNameFieldNumber, name);
  }
  PutStr(out, event_field, sub);
  return true;
}

bool ParseWholeInt(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  bool hex = s.size() > i + 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X');
  size_t j = hex ? i + 2 : i;
  for (; j < s.size(); ++j)
    if (!(hex ? isxdigit(static_cast<unsigned char>(s[j]))
              : isdigit(static_cast<unsigned char>(s[j]))))
      return false;
  std::string copy(s);
  *out = static_cast<int64_t>(strtoull(copy.c_str() + (i ? 1 : 0), nullptr, hex ? 16 : 10));
  if (i) *out = -*out;
  return true;
}

void EncodeTextEvent(const TextLineTask& task, std::string_view event, std::string* out) {
  out->clear();
  PutInt(out, 1, task.tid);
  PutStr(out, 2, task.comm);
  if (task.tgid) PutInt(out, 3, *task.tgid);
  if (!event.empty()) PutStr(out, 4, event);
}

void ParseTextEvent(TraceContext* ctx, int64_t ts, uint32_t cpu, const uint8_t* data, size_t size) {
  int64_t tid = 0;
  std::string_view comm;
  std::optional<int64_t> tgid;
  proto::Bytes event{};
  proto::Decoder d(proto::Bytes{data, size});
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == 1) tid = f.as_int64();
    if (f.id == 2) comm = f.as_string();
    if (f.id == 3) tgid = f.as_int64();
    if (f.id == 4) event = f.bytes;
  }
  ctx->ftrace_parser->OnTextLineTask(tid, comm, tgid);
  if (event.data) ctx->ftrace_parser->ParseFtraceEvent(ts, cpu, event, nullptr, /*from_text=*/true);
}

SystraceTextTokenizer::SystraceTextTokenizer(Sorter* sorter, TraceContext* ctx)
    : sorter_(sorter), ctx_(ctx) {}

void SystraceTextTokenizer::CountMalformed(std::string_view line, uint64_t offset) {
  ++malformed_lines_;
  if (!ctx_) return;
  ctx_->storage->stats.Increment(Stat::kSystraceParseFailure);
  // The line is quoted with anything unprintable escaped: it may hold
  // terminal control bytes.
  std::string quoted;
  for (char c : line.substr(0, 80)) {
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && c != '\\') {
      quoted += c;
    } else {
      static const char kHex[] = "0123456789abcdef";
      quoted += "\\x";
      quoted += kHex[u >> 4];
      quoted += kHex[u & 15];
    }
  }
  if (line.size() > 80) quoted += "...";
  ctx_->problems.Add("systrace_parse_failure", offset,
                     "text line is not an ftrace event and was dropped (stat "
                     "systrace_parse_failure): \"" +
                         quoted + "\"");
}

namespace {

// atrace's "cpus=8" line, which starts its text when there is no ftrace header.
bool IsCpusHeader(std::string_view line) {
  if (line.substr(0, 5) != "cpus=" || line.size() == 5) return false;
  for (char c : line.substr(5))
    if (!IsDigitChar(c)) return false;
  return true;
}

// Where the trace text starts in atrace's output: after its "TRACE:" line
// when that comes in the first 4 KiB (what precedes it is atrace's banner,
// which upstream skips whole, event-like lines included), else at 0.
size_t AtraceDataStart(std::string_view head) {
  head = head.substr(0, 4096);
  for (size_t at = 0; at < head.size();) {
    size_t nl = head.find('\n', at);
    if (nl == std::string_view::npos) break;
    std::string_view line = head.substr(at, nl - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    // A "TRACE:" line that ends the text starts no trace data.
    if (line == "TRACE:" && nl + 1 < head.size()) return nl + 1;
    at = nl + 1;
  }
  return 0;
}

}  // namespace

void SystraceTextTokenizer::TokenizeLine(std::string_view line, uint64_t offset) {
  // Only the text's first line may be atrace's "cpus=N" header.
  const bool first_line = at_text_start_;
  at_text_start_ = false;
  if (first_line && IsCpusHeader(line)) return;
  // Catapult files keep the text in a JavaScript string: lines end in "\\n\\".
  bool in_string = line.size() >= 3 && line.substr(line.size() - 3) == "\\n\\";
  if (in_string) line.remove_suffix(3);
  uint32_t cpu = 0;
  int64_t ts = 0;
  bool generic = false;
  TextLineTask task;
  if (!SystraceLineToFtraceEvent(line, &event_, &cpu, &ts, &generic, &task)) {
    // As upstream: empty lines and comments are skipped, anything else
    // (even blanks) is a line that failed to parse. A page's markup is not.
    size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line[first] == '<') in_page_ = true;
    bool comment = first != std::string_view::npos && line[first] == '#';
    if (!line.empty() && !comment && (!in_page_ || in_string)) CountMalformed(line, offset);
    return;
  }
  EncodeTextEvent(task, generic ? std::string_view() : std::string_view(event_), &scratch_);
  // Events live in large arena blocks: one allocation per ~4 MB, not per event.
  if (arena_.empty() || arena_used_ + scratch_.size() > kArenaBlock) {
    size_t n = scratch_.size() > kArenaBlock ? scratch_.size() : kArenaBlock;
    arena_.emplace_back(new uint8_t[n]);
    arena_used_ = 0;
    retained_bytes_ += n;
  }
  uint8_t* stored = arena_.back().get() + arena_used_;
  memcpy(stored, scratch_.data(), scratch_.size());
  arena_used_ += scratch_.size();
  SortEntry e{};
  e.ts = ts;
  e.data = stored;
  e.size = static_cast<uint32_t>(scratch_.size());
  e.cpu = static_cast<uint16_t>(cpu);
  e.kind = SortKind::kFtraceEvent;
  e.aux = generic ? kGenericTextEventAux : kTextEventAux;
  if (queue_ == UINT32_MAX) queue_ = sorter_->SourceQueue();
  sorter_->Push(queue_, e);
  ++events_;
}

void SystraceTextTokenizer::FinishLastLine(std::string_view line) {
  // Upstream ignores an unterminated last line entirely. Fathom still reads
  // an event there (a cut file keeps its last event), but trailing blanks
  // without a line break are no parse failure, as upstream.
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;
  TokenizeLine(line, next_offset_);
}

Result<size_t> SystraceTextTokenizer::Feed(std::unique_ptr<TraceBlob> blob,
                                           uint64_t stream_offset) {
  std::string_view text(reinterpret_cast<const char*>(blob->data.get()), blob->size);
  size_t start = 0;
  if (at_text_start_) start = AtraceDataStart(text);
  while (true) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) break;
    std::string_view line = text.substr(start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    TokenizeLine(line, stream_offset + start);
    start = nl + 1;
  }
  size_t leftover = text.size() - start;
  next_offset_ = stream_offset + start;
  last_blob_ = std::move(blob);
  return leftover;
}

}  // namespace fathom
