#include "core/import/hprof/hprof_tokenizer.h"

#include "core/import/hprof/hprof_writer.h"
#include "core/import/trace_context.h"

namespace fathom {

HprofTokenizer::HprofTokenizer(TraceContext* ctx, std::string name)
    : ctx_(ctx), name_(std::move(name)) {}

Result<size_t> HprofTokenizer::Feed(std::unique_ptr<TraceBlob> blob, uint64_t stream_offset) {
  size_t used = reader_.Feed(blob->data.get(), blob->size, stream_offset);
  // The loader copies the unread tail out of the blob after this returns.
  last_ = std::move(blob);
  return last_->size - used;
}

void HprofTokenizer::Finish(size_t tail_bytes, uint64_t end_offset,
                            std::vector<std::string>* warnings) {
  TraceStorage* s = ctx_->storage.get();
  auto at = [&](uint64_t offset) {
    return name_ + ": byte offset " + std::to_string(offset) + ": ";
  };
  if (reader_.failed()) {
    warnings->push_back(at(reader_.error_offset()) + reader_.error() +
                        "; the rest of the heap dump was not loaded");
    s->stats.Increment(Stat::kHprofHeapDumpErrors);
  } else if (!reader_.header_read()) {
    warnings->push_back(at(0) + "the HPROF header is incomplete");
    s->stats.Increment(Stat::kHprofHeaderErrors);
  } else if (tail_bytes || reader_.skip_left() || reader_.inside_segment()) {
    // The file ends inside a record: what came before is loaded.
    std::string what = "the heap dump ends inside a record";
    if (tail_bytes) what += " (its last " + std::to_string(tail_bytes) + " bytes are incomplete)";
    if (uint64_t missing = reader_.skip_left())
      what += " (" + std::to_string(missing) + " announced bytes are missing)";
    warnings->push_back(at(end_offset - tail_bytes) + what + "; what came before it is loaded");
    s->stats.Increment(Stat::kTraceTruncated, static_cast<int64_t>(tail_bytes));
  }
  reader_.ResolvePending();
  hprof::WriteTables(dump_, ctx_);
}

}  // namespace fathom
