#include "core/import/json_tokenizer.h"

#include "core/import/json_value.h"

namespace fathom {

JsonTokenizer::JsonTokenizer(TraceContext* ctx, Sorter* sorter) : ctx_(ctx), sorter_(sorter) {
  queue_ = sorter_->SequenceQueue(0xFFFFFFFFu);
}

void JsonTokenizer::EmitEvent(const uint8_t* begin, size_t size, uint64_t offset) {
  // Only the timestamp is needed now; the parser reads the whole object later.
  auto v = json::Parse(std::string_view(reinterpret_cast<const char*>(begin), size));
  if (!v || !v->is_object()) {
    ctx_->storage->stats.Increment(Stat::kJsonParseErrors);
    return;
  }
  int64_t ts = 0;
  if (const json::Value* t = v->Find("ts")) {
    auto ns = json::MicrosToNanos(*t);
    if (!ns) {
      ctx_->storage->stats.Increment(Stat::kJsonParseErrors);
      return;
    }
    ts = *ns;
  }
  SortEntry e{};
  e.ts = ts;
  e.data = begin;
  e.size = static_cast<uint32_t>(size);
  e.kind = SortKind::kJsonEvent;
  sorter_->Push(queue_, e);
  ++events_;
}

Result<size_t> JsonTokenizer::Feed(std::unique_ptr<TraceBlob> blob, uint64_t stream_offset) {
  const uint8_t* data = blob->data.get();
  size_t size = blob->size;
  size_t event_start = SIZE_MAX;  // offset in this blob of the open event's '{'
  for (size_t i = 0; i < size; ++i) {
    char c = static_cast<char>(data[i]);
    if (in_string_) {
      if (escape_) {
        escape_ = false;
      } else if (c == '\\') {
        escape_ = true;
      } else if (c == '"') {
        in_string_ = false;
        if (capturing_key_) {
          capturing_key_ = false;
          last_key_ = key_;
        }
      } else if (capturing_key_ && key_.size() < 64) {
        key_.push_back(c);
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string_ = true;
        if (depth_ == 1 && top_is_object_ && expect_key_) {
          capturing_key_ = true;
          key_.clear();
          expect_key_ = false;
        }
        break;
      case ':':
        if (depth_ == 1 && top_is_object_ && last_key_ != "traceEvents" &&
            last_key_ != "displayTimeUnit" && last_key_ != "metadata" &&
            last_key_ != "stackFrames" && last_key_ != "samples") {
          bool known = false;
          for (const auto& k : unsupported_keys_) known |= k == last_key_;
          if (!known) unsupported_keys_.push_back(last_key_);
        }
        break;
      case ',':
        if (depth_ == 1 && top_is_object_) expect_key_ = true;
        break;
      case '{':
      case '[':
        if (depth_ == 0) {
          if (c == '[') {
            events_depth_ = 1;
          } else {
            top_is_object_ = true;
            expect_key_ = true;
          }
        } else if (depth_ == 1 && top_is_object_ && c == '[' && last_key_ == "traceEvents") {
          events_depth_ = 2;
        } else if (depth_ == events_depth_ && c == '{') {
          event_start = i;
        }
        ++depth_;
        break;
      case '}':
      case ']':
        --depth_;
        if (depth_ < 0) {
          return ErrorStatus("byte offset " + std::to_string(stream_offset + i) +
                             ": unbalanced '" + std::string(1, c) + "' in JSON");
        }
        if (depth_ == events_depth_ && c == '}' && event_start != SIZE_MAX) {
          EmitEvent(data + event_start, i + 1 - event_start, stream_offset + event_start);
          event_start = SIZE_MAX;
        } else if (depth_ == events_depth_ - 1 && c == ']') {
          events_depth_ = -1;  // the events array closed
        }
        break;
      default:
        break;
    }
  }
  size_t leftover = 0;
  if (event_start != SIZE_MAX) {
    // Rewind the scanner to the event's '{' so it rescans it whole next time.
    leftover = size - event_start;
    depth_ = events_depth_;
    in_string_ = false;
    escape_ = false;
  }
  retained_bytes_ += size;
  blobs_.push_back(std::move(blob));
  return leftover;
}

}  // namespace fathom
