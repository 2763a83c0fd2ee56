#include "core/import/art_alloc_log_tokenizer.h"

#include <cmath>
#include <map>

#include "core/import/process_tracker.h"
#include "core/import/profile_parser.h"

namespace fathom {

ArtAllocLogTokenizer::ArtAllocLogTokenizer(TraceContext* ctx, std::string log_name)
    : ctx_(ctx), log_name_(std::move(log_name)) {}

Result<size_t> ArtAllocLogTokenizer::Feed(std::unique_ptr<TraceBlob> blob, uint64_t) {
  std::string_view text(reinterpret_cast<const char*>(blob->data.get()), blob->size);
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string_view::npos; start = nl + 1)
    parser_.ParseLine(text.substr(start, nl - start));
  last_blob_ = std::move(blob);
  return text.size() - start;
}

void ArtAllocLogTokenizer::FinishLastLine(std::string_view line) {
  if (!line.empty()) parser_.ParseLine(line);
}

void ArtAllocLogTokenizer::Finish(std::vector<std::string>* warnings) {
  TraceStorage* s = ctx_->storage.get();
  const ArtAllocLogHeader& h = parser_.header();

  if (uint64_t bad = parser_.malformed_count()) {
    s->stats.Increment(Stat::kArtAllocLogMalformed, static_cast<int64_t>(bad));
    std::string at;
    for (uint64_t line : parser_.malformed_lines()) {
      s->stats.SetIndexed(Stat::kArtAllocLogMalformedAt, static_cast<int64_t>(line), 1);
      if (at.size() < 60) at += (at.empty() ? "" : ", ") + std::to_string(line);
    }
    warnings->push_back(log_name_ + ": " + std::to_string(bad) +
                        " malformed tiallocsample lines skipped (lines " + at +
                        (bad > 1 && at.size() >= 60 ? ", …" : "") + ")");
  }
  if (h.present && !h.complete)
    warnings->push_back(log_name_ +
                        ": the log has no \"# end\" line: the VM did not shut down "
                        "cleanly, so samples written after the last flush are missing");

  // The process: the header's pid, else a synthetic one named after the file.
  uint32_t upid;
  ProcessTracker* procs = ctx_->process_tracker.get();
  if (h.pid) {
    upid = procs->GetOrCreateProcess(*h.pid);
    if (!h.process.empty()) procs->SetProcessNameIfUnset(upid, s->Intern(h.process));
  } else {
    std::string base = log_name_.substr(log_name_.find_last_of('/') + 1);
    upid = s->process.Insert(0);
    procs->SetProcessNameIfUnset(upid, s->Intern(base));
  }
  int64_t ts = h.end_ts.value_or(h.ts.value_or(0));

  StackProfileTracker* stacks = ctx_->profile_parser->stack_tracker();
  uint32_t mapping = stacks->InternMapping(kNullStringId, 0, 0, 0, 0, 0, s->Intern("JAVA"));
  StringId heap = s->Intern("com.android.art");
  // Different stacks (other thread, other size) can end in the same callsite:
  // sum their estimated counts and bytes before rounding.
  std::map<uint32_t, std::pair<double, double>> per_callsite;
  for (const auto& [stack_id, samples] : parser_.samples()) {
    const std::vector<int64_t>& ids = *parser_.Stack(stack_id);
    const ArtAllocType& type = *parser_.Type(ids[0]);
    std::optional<uint32_t> callsite;
    for (size_t i = 1; i < ids.size(); ++i) {
      uint32_t frame =
          stacks->InternFrame(mapping, 0, s->Intern(*parser_.Frame(ids[i])), kNullStringId);
      callsite = stacks->InternCallsite(callsite, frame);
    }
    uint32_t leaf = stacks->InternFrame(
        mapping, 0, s->Intern(JavaClassDisplayName(type.class_signature)), kNullStringId);
    callsite = stacks->InternCallsite(callsite, leaf);
    double count = ArtSampleWeight(h, type.size) * static_cast<double>(samples);
    auto& acc = per_callsite[*callsite];
    acc.first += count;
    acc.second += count * static_cast<double>(type.size);
  }
  for (const auto& [callsite, v] : per_callsite) {
    s->profile.heap_profile_allocation.Insert(ts, upid, heap, callsite, std::llround(v.first),
                                              std::llround(v.second));
  }
}

}  // namespace fathom
