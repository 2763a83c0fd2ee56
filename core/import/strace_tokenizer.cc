#include "core/import/strace_tokenizer.h"

#include "core/import/args_tracker.h"
#include "core/import/process_tracker.h"
#include "core/import/slice_tracker.h"
#include "core/import/strace_line.h"
#include "core/import/track_tracker.h"

namespace fathom {

StraceTokenizer::StraceTokenizer(TraceContext* ctx)
    : ctx_(ctx), category_(ctx->storage->Intern("strace")) {}

uint32_t StraceTokenizer::TrackFor(uint32_t pid) {
  // strace -f prints thread ids: the line's pid is the thread.
  uint32_t utid = ctx_->process_tracker->GetOrCreateThread(pid);
  return ctx_->track_tracker->InternThreadTrack(utid);
}

void StraceTokenizer::BeginPending(int64_t ts, uint32_t pid, StringId name, std::string_view args) {
  // No args yet: the resumed half may replace them, and args given at both
  // ends would be two "args" rows. They are written when the syscall ends.
  auto id = ctx_->slice_tracker->Begin(ts, TrackFor(pid), category_, name);
  if (id) pending_[pid].push_back({name, *id, std::string(args)});
}

void StraceTokenizer::ParseLine(std::string_view line) {
  using Kind = StraceLine::Kind;
  TraceStorage* s = ctx_->storage.get();
  StraceLine l = ParseStraceLine(line);
  switch (l.kind) {
    case Kind::kNotSyscall:
      s->stats.Increment(Stat::kStraceParseFailure);
      return;
    case Kind::kMissingPid:
      s->stats.Increment(Stat::kStraceMissingPid);
      return;
    case Kind::kTimeOfDay:
      s->stats.Increment(Stat::kStraceUnsupportedTimestampFormat);
      return;
    default:
      break;
  }
  ++syscalls_;
  s->UpdateBounds(l.ts);
  StringId name = s->Intern(l.name);
  if (l.kind == Kind::kComplete) {
    auto args = ctx_->args_tracker->NewSet();
    if (!l.args.empty()) args.AddString("args", l.args);
    args.AddString("ret", l.ret);
    ctx_->slice_tracker->Scoped(l.ts, TrackFor(l.pid), category_, name, 0, std::move(args));
    return;
  }
  if (l.kind == Kind::kUnfinished) {
    BeginPending(l.ts, l.pid, name, l.args);
    return;
  }
  // A resumed half ends the same thread's unfinished call of that name (a
  // half with nothing to resume is dropped) and, when strace interrupted it
  // again, starts the next part.
  auto& open = pending_[l.pid];
  for (size_t i = open.size(); i-- > 0;) {
    if (open[i].name != name) continue;
    auto args = ctx_->args_tracker->NewSet();
    std::string_view text = l.args.empty() ? std::string_view(open[i].args) : l.args;
    if (!text.empty()) args.AddString("args", text);
    if (l.kind == Kind::kResumed) args.AddString("ret", l.ret);
    ctx_->slice_tracker->End(l.ts, TrackFor(l.pid), category_, name, std::move(args));
    open.erase(open.begin() + static_cast<std::ptrdiff_t>(i));
    break;
  }
  if (l.kind == Kind::kResumedUnfinished) BeginPending(l.ts, l.pid, name, l.args);
}

Result<size_t> StraceTokenizer::Feed(std::unique_ptr<TraceBlob> blob, uint64_t) {
  std::string_view text(reinterpret_cast<const char*>(blob->data.get()), blob->size);
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string_view::npos; start = nl + 1)
    ParseLine(text.substr(start, nl - start));
  last_blob_ = std::move(blob);
  return text.size() - start;
}

void StraceTokenizer::FinishLastLine(std::string_view line) {
  if (line.find_first_not_of(" \t\r") != std::string_view::npos) ParseLine(line);
}

void StraceTokenizer::Finish() {
  auto& arg_set = ctx_->storage->slice.arg_set_id;
  for (auto& [pid, open] : pending_) {
    for (Pending& p : open) {
      if (p.args.empty()) continue;
      auto args = ctx_->args_tracker->NewSet();
      args.AddString("args", p.args);
      if (auto set = args.Commit()) arg_set.Set(p.slice_id, *set);
    }
  }
  pending_.clear();
}

}  // namespace fathom
