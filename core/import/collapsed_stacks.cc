#include "core/import/collapsed_stacks.h"

#include <cctype>

#include "core/import/process_tracker.h"
#include "core/import/profile_parser.h"
#include "core/import/profile_stack_tracker.h"

namespace fathom {
namespace {

// Splits "a;b;c 12" into stack and count; false when the line has no count.
bool SplitLine(std::string_view line, std::string_view* stack, uint64_t* count) {
  size_t sp = line.find_last_of(" \t");
  if (sp == std::string_view::npos || sp + 1 == line.size() || sp == 0) return false;
  uint64_t n = 0;
  for (char c : line.substr(sp + 1)) {
    if (!isdigit(static_cast<unsigned char>(c))) return false;
    if (n > (UINT64_MAX - 9) / 10) return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  *stack = line.substr(0, sp);
  while (!stack->empty() && (stack->back() == ' ' || stack->back() == '\t'))
    stack->remove_suffix(1);
  *count = n;
  return !stack->empty();
}

}  // namespace

bool LooksLikeCollapsedStacks(const uint8_t* data, size_t size) {
  // The first stack line must parse and hold a ';'; later lines may be
  // damaged (the importer then reports them by line number), but most of
  // the first 50 must parse.
  std::string_view s(reinterpret_cast<const char*>(data), size < 65536 ? size : 65536);
  size_t start = 0, good = 0, bad = 0;
  while (start < s.size() && good + bad < 50) {
    size_t nl = s.find('\n', start);
    if (nl == std::string_view::npos) {
      if (start != 0 && s.size() < size) break;  // a cut last line proves nothing
      nl = s.size();
    }
    std::string_view line = s.substr(start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    start = nl + 1;
    if (line.empty() || line[0] == '#') continue;
    std::string_view stack;
    uint64_t n;
    bool ok = SplitLine(line, &stack, &n);
    if (good + bad == 0 && (!ok || stack.find(';') == std::string_view::npos)) return false;
    (ok ? good : bad)++;
  }
  return good > 0 && good >= 2 * bad + 1;
}

CollapsedStacksTokenizer::CollapsedStacksTokenizer(TraceContext* ctx, const std::string& name)
    : ctx_(ctx), name_(name) {}

Status CollapsedStacksTokenizer::Line(std::string_view line) {
  ++line_no_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty() || line[0] == '#') return Status::Ok();
  std::string_view stack;
  uint64_t count = 0;
  if (!SplitLine(line, &stack, &count))
    return ErrorStatus("line " + std::to_string(line_no_) +
                       ": expected \"frame;frame;... COUNT\", got \"" +
                       std::string(line.substr(0, 80)) + "\"");
  TraceStorage* s = ctx_->storage.get();
  StackProfileTracker* st = ctx_->profile_parser->stack_tracker();
  if (!started_) {
    started_ = true;
    // One synthetic process (named after the file) owns every sample.
    utid_ = ctx_->process_tracker->UpdateThread(0, 0);
    uint32_t upid = *ctx_->process_tracker->GetUpidOfThread(utid_);
    s->process.name.Set(upid, s->Intern(name_));
    mapping_ = st->InternMapping(kNullStringId, 0, 0, 0, 0, 0, s->Intern("[collapsed]"));
    s->UpdateBounds(0);
  }
  std::optional<uint32_t> callsite;
  size_t pos = 0;
  while (pos <= stack.size()) {
    size_t semi = stack.find(';', pos);
    if (semi == std::string_view::npos) semi = stack.size();
    std::string_view frame = stack.substr(pos, semi - pos);
    pos = semi + 1;
    if (frame.empty()) continue;
    auto [it, inserted] = frames_.try_emplace(std::string(frame), 0);
    if (inserted) it->second = st->InternFrame(mapping_, 0, s->Intern(frame), kNullStringId);
    callsite = st->InternCallsite(callsite, it->second);
  }
  ++lines_;
  if (!callsite) return Status::Ok();
  uint64_t room = kMaxSamples - samples_;
  uint64_t n = count < room ? count : room;
  capped_ += count - n;
  StringId mode = s->Intern("user");
  // Samples carry no time: they sit at ts 0..n-1 ns so the dump spans them.
  for (uint64_t i = 0; i < n; ++i) {
    s->profile.perf_sample.Insert(static_cast<int64_t>(samples_), utid_, std::nullopt, mode,
                                  callsite, kNullStringId);
    ++samples_;
  }
  if (samples_) s->UpdateBounds(static_cast<int64_t>(samples_ - 1));
  return Status::Ok();
}

Result<size_t> CollapsedStacksTokenizer::Feed(std::unique_ptr<TraceBlob> blob, uint64_t) {
  std::string_view text(reinterpret_cast<const char*>(blob->data.get()), blob->size);
  size_t start = 0;
  while (true) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) break;
    Status st = Line(text.substr(start, nl - start));
    if (!st.ok()) return st;
    start = nl + 1;
  }
  last_blob_ = std::move(blob);
  return text.size() - start;
}

Status CollapsedStacksTokenizer::FinishLastLine(std::string_view line) {
  if (line.empty()) return Status::Ok();
  return Line(line);
}

}  // namespace fathom
