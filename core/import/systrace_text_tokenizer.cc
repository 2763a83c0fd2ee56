#include "core/import/systrace_text_tokenizer.h"

#include <cctype>
#include <cstdlib>

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

int64_t ToInt(std::string_view s) { return strtoll(std::string(s).c_str(), nullptr, 10); }

// Text task state ("S", "R+", "D|K") -> the pre-4.8 kernel bit layout the
// ftrace parser assumes when the kernel version is unknown.
int64_t PrevStateBits(std::string_view s) {
  int64_t bits = 0;
  for (char c : s) {
    switch (c) {
      case 'S': bits |= 0x1; break;
      case 'D': bits |= 0x2; break;
      case 'T': bits |= 0x4; break;
      case 't': bits |= 0x8; break;
      case 'X': bits |= 0x10; break;
      case 'Z': bits |= 0x20; break;
      case 'x': bits |= 0x40; break;
      case 'K': bits |= 0x80; break;
      case 'W': bits |= 0x100; break;
      case 'P': bits |= 0x200; break;
      case 'N': bits |= 0x400; break;
      case 'I': bits |= 0x402; break;
      case '+': bits |= 0x800; break;
      default: break;  // 'R', '|'
    }
  }
  return bits;
}

}  // namespace

bool SystraceLineToFtraceEvent(std::string_view line, std::string* out, uint32_t* cpu,
                               int64_t* ts) {
  line = Trim(line);
  if (line.empty() || line[0] == '#') return false;
  // "<comm>-<tid> [(<tgid>)] [<cpu>] [<flags>] <sec>.<usec>: <event>: <args>"
  size_t bracket = line.find(" [");
  while (bracket != std::string_view::npos &&
         !(bracket + 2 < line.size() && isdigit(static_cast<unsigned char>(line[bracket + 2]))))
    bracket = line.find(" [", bracket + 1);
  if (bracket == std::string_view::npos) return false;
  std::string_view task = Trim(line.substr(0, bracket));
  // Drop a TGID column: "( 1234)" or "(-----)".
  if (!task.empty() && task.back() == ')') {
    size_t open = task.rfind('(');
    if (open == std::string_view::npos) return false;
    task = Trim(task.substr(0, open));
  }
  size_t dash = task.rfind('-');
  if (dash == std::string_view::npos) return false;
  int64_t tid = ToInt(task.substr(dash + 1));
  size_t close = line.find(']', bracket);
  if (close == std::string_view::npos) return false;
  *cpu = static_cast<uint32_t>(ToInt(line.substr(bracket + 2, close - bracket - 2)));
  if (*cpu >= kMaxCpus) return false;
  std::string_view rest = Trim(line.substr(close + 1));
  size_t colon = rest.find(": ");
  if (colon == std::string_view::npos) return false;
  std::string_view time = rest.substr(0, colon);
  size_t space = time.rfind(' ');
  if (space != std::string_view::npos) time = time.substr(space + 1);  // skip flags
  size_t dot = time.find('.');
  if (dot == std::string_view::npos) return false;
  std::string frac(time.substr(dot + 1));
  if (frac.empty() || frac.size() > 9) return false;
  frac.resize(9, '0');
  *ts = ToInt(time.substr(0, dot)) * 1000000000 + ToInt(frac);
  rest = rest.substr(colon + 2);
  size_t name_end = rest.find(':');
  std::string_view name = Trim(rest.substr(0, name_end));
  std::string_view args = name_end == std::string_view::npos ? "" : Trim(rest.substr(name_end + 1));

  pb::FtraceEvent ev;
  ev.set_timestamp(static_cast<uint64_t>(*ts));
  ev.set_pid(static_cast<uint32_t>(tid));
  if (name == "sched_switch") {
    auto* e = ev.mutable_sched_switch();
    e->set_prev_comm(std::string(Arg(args, "prev_comm")));
    e->set_prev_pid(static_cast<int32_t>(ToInt(Arg(args, "prev_pid"))));
    e->set_prev_prio(static_cast<int32_t>(ToInt(Arg(args, "prev_prio"))));
    e->set_prev_state(PrevStateBits(Arg(args, "prev_state")));
    e->set_next_comm(std::string(Arg(args, "next_comm")));
    e->set_next_pid(static_cast<int32_t>(ToInt(Arg(args, "next_pid"))));
    e->set_next_prio(static_cast<int32_t>(ToInt(Arg(args, "next_prio"))));
  } else if (name == "sched_wakeup" || name == "sched_waking" || name == "sched_wakeup_new") {
    std::string comm(Arg(args, "comm"));
    int32_t pid = static_cast<int32_t>(ToInt(Arg(args, "pid")));
    int32_t prio = static_cast<int32_t>(ToInt(Arg(args, "prio")));
    int32_t target = static_cast<int32_t>(ToInt(Arg(args, "target_cpu")));
    if (name == "sched_wakeup") {
      auto* e = ev.mutable_sched_wakeup();
      e->set_comm(comm), e->set_pid(pid), e->set_prio(prio), e->set_target_cpu(target);
    } else if (name == "sched_waking") {
      auto* e = ev.mutable_sched_waking();
      e->set_comm(comm), e->set_pid(pid), e->set_prio(prio), e->set_target_cpu(target);
    } else {
      auto* e = ev.mutable_sched_wakeup_new();
      e->set_comm(comm), e->set_pid(pid), e->set_prio(prio), e->set_target_cpu(target);
    }
  } else if (name == "cpu_frequency") {
    auto* e = ev.mutable_cpu_frequency();
    e->set_state(static_cast<uint32_t>(ToInt(Arg(args, "state"))));
    e->set_cpu_id(static_cast<uint32_t>(ToInt(Arg(args, "cpu_id"))));
  } else if (name == "cpu_idle") {
    auto* e = ev.mutable_cpu_idle();
    e->set_state(static_cast<uint32_t>(strtoul(std::string(Arg(args, "state")).c_str(), nullptr, 10)));
    e->set_cpu_id(static_cast<uint32_t>(ToInt(Arg(args, "cpu_id"))));
  } else if (name == "tracing_mark_write" || name == "print" || name == "0") {
    // atrace markers: "B|pid|name", "E", "C|pid|name|value", ...
    ev.mutable_print()->set_buf(std::string(args) + "\n");
  } else {
    return false;
  }
  return ev.SerializeToString(out);
}

SystraceTextTokenizer::SystraceTextTokenizer(TraceContext* ctx, Sorter* sorter)
    : ctx_(ctx), sorter_(sorter) {}

void SystraceTextTokenizer::TokenizeLine(std::string_view line) {
  // Catapult files keep the text in a JavaScript string: lines end in "\n\".
  if (line.size() >= 3 && line.substr(line.size() - 3) == "\\n\\") line.remove_suffix(3);
  std::string bytes;
  uint32_t cpu = 0;
  int64_t ts = 0;
  if (!SystraceLineToFtraceEvent(line, &bytes, &cpu, &ts)) return;
  encoded_.push_back(std::move(bytes));
  const std::string& stored = encoded_.back();
  retained_bytes_ += stored.size();
  SortEntry e{};
  e.ts = ts;
  e.data = reinterpret_cast<const uint8_t*>(stored.data());
  e.size = static_cast<uint32_t>(stored.size());
  e.cpu = static_cast<uint16_t>(cpu);
  e.kind = SortKind::kFtraceEvent;
  sorter_->Push(sorter_->FtraceQueue(cpu), e);
  ++events_;
}

void SystraceTextTokenizer::FinishLastLine(std::string_view line) { TokenizeLine(line); }

Result<size_t> SystraceTextTokenizer::Feed(std::unique_ptr<TraceBlob> blob, uint64_t) {
  std::string_view text(reinterpret_cast<const char*>(blob->data.get()), blob->size);
  size_t start = 0;
  while (true) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) break;
    std::string_view line = text.substr(start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    TokenizeLine(line);
    start = nl + 1;
  }
  size_t leftover = text.size() - start;
  last_blob_ = std::move(blob);
  return leftover;
}

}  // namespace fathom
