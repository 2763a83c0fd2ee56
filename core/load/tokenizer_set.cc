#include "core/load/tokenizer_set.h"

#include <string_view>

#include "core/import/art_alloc_log_tokenizer.h"
#include "core/import/collapsed_stacks.h"
#include "core/import/hprof/hprof_tokenizer.h"
#include "core/import/json_tokenizer.h"
#include "core/import/pprof_tokenizer.h"
#include "core/import/process_tracker.h"
#include "core/import/proto_tokenizer.h"
#include "core/import/simpleperf_proto_tokenizer.h"
#include "core/import/strace_tokenizer.h"
#include "core/import/systrace_text_tokenizer.h"

namespace fathom {

TokenizerSet::TokenizerSet(TraceContext* ctx, Sorter* sorter)
    : ctx_(ctx), sorter_(sorter), json_parser_(ctx) {}

TokenizerSet::~TokenizerSet() = default;

Result<SourceTokenizer> TokenizerSet::For(TraceFormat format, const std::string& source_name,
                                          const std::string& pprof_scope) {
  SourceTokenizer t;
  t.format = format;
  t.name = source_name;
  switch (format) {
    case TraceFormat::kProto:
      // Kernel-data formats: pid 0 is the idle task (as upstream).
      ctx_->process_tracker->SetPidZeroIsUpidZeroIdleProcess();
      if (!proto_) {
        proto_ = new ProtoTokenizer(ctx_, sorter_);
        all_.emplace_back(proto_);
      }
      t.tokenizer = proto_;
      return t;
    case TraceFormat::kJson:
      all_.emplace_back(t.tokenizer = t.json = new JsonTokenizer(ctx_, sorter_));
      return t;
    case TraceFormat::kSystraceText:
      ctx_->process_tracker->SetPidZeroIsUpidZeroIdleProcess();
      all_.emplace_back(t.tokenizer = t.text = new SystraceTextTokenizer(sorter_, ctx_));
      return t;
    case TraceFormat::kArtAllocLog:
      all_.emplace_back(t.tokenizer = t.art_log = new ArtAllocLogTokenizer(ctx_, source_name));
      return t;
    case TraceFormat::kCollapsedStacks:
      all_.emplace_back(t.tokenizer = t.collapsed =
                            new CollapsedStacksTokenizer(ctx_, source_name));
      return t;
    case TraceFormat::kPprof:
      all_.emplace_back(t.tokenizer = t.pprof = new PprofTokenizer(ctx_, pprof_scope));
      return t;
    case TraceFormat::kSimpleperfProto:
      all_.emplace_back(t.tokenizer = t.simpleperf = new SimpleperfProtoTokenizer(ctx_));
      return t;
    case TraceFormat::kStrace:
      all_.emplace_back(t.tokenizer = t.strace = new StraceTokenizer(ctx_));
      return t;
    case TraceFormat::kHprof:
      all_.emplace_back(t.tokenizer = t.hprof = new HprofTokenizer(ctx_, source_name));
      return t;
    default:
      return ErrorStatus(source_name + ": " + TraceFormatName(format) +
                         " traces are not supported by this build yet");
  }
}

size_t TokenizerSet::Finish(const SourceTokenizer& t, const std::vector<uint8_t>& last,
                            uint64_t end_offset, std::vector<std::string>* warnings) {
  std::string_view last_line(reinterpret_cast<const char*>(last.data()), last.size());
  const std::string& name = t.name;
  if (t.text) {
    // Text may end without a newline: the last line is whole.
    if (!last.empty()) t.text->FinishLastLine(last_line);
    return 0;
  }
  if (t.strace) {  // no timestamps to sort: rows are written as lines come
    t.strace->FinishLastLine(last_line);
    t.strace->Finish();
    return 0;
  }
  if (t.collapsed) {
    if (Status st = t.collapsed->FinishLastLine(last_line); !st.ok())
      warnings->push_back(name + ": " + st.message());
    if (t.collapsed->capped_samples())
      warnings->push_back(name + ": " + std::to_string(t.collapsed->capped_samples()) +
                          " samples above the limit were not loaded");
    return 0;
  }
  if (t.hprof) {  // rows are written once every record is read; reports its own damage
    t.hprof->Finish(last.size(), end_offset, warnings);
    return 0;
  }
  if (t.pprof) {  // no timestamps to sort: rows are written here
    if (Status st = t.pprof->Finish(); !st.ok()) warnings->push_back(name + ": " + st.message());
    return 0;
  }
  if (t.simpleperf) {  // samples are ordered there, once every record is read
    if (Status st = t.simpleperf->Finish(); !st.ok())
      warnings->push_back(name + ": " + st.message());
    return 0;
  }
  if (t.art_log) {  // no timestamps to sort: rows are written here
    t.art_log->FinishLastLine(last_line);
    t.art_log->Finish(warnings);
    return 0;
  }
  if (t.json) {
    if (Status st = t.json->Finish(); !st.ok()) warnings->push_back(name + ": " + st.message());
    if (t.json->stack_frames()) json_parser_.SetStackFrames(t.json->stack_frames());
    for (const std::string& key : t.json->unsupported_keys())
      warnings->push_back(name + ": JSON key \"" + key + "\" is not imported by this build");
  }
  return last.size();
}

size_t TokenizerSet::retained_bytes() const {
  size_t n = 0;
  for (const auto& t : all_) n += t->retained_bytes();
  return n;
}

}  // namespace fathom
