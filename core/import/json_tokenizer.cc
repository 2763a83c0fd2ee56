#include "core/import/json_tokenizer.h"

#include <array>
#include <cstring>
#include <string_view>

#include "core/import/json_value.h"

namespace fathom {
namespace {

// The bytes the scanner acts on outside strings.
constexpr auto kStructural = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : std::string_view("\"{}[]:,")) t[c] = true;
  return t;
}();

}  // namespace

JsonTokenizer::JsonTokenizer(TraceContext* ctx, Sorter* sorter) : ctx_(ctx), sorter_(sorter) {
  queue_ = sorter_->SequenceQueue(0xFFFFFFFFu);
}

void JsonTokenizer::EmitEvent(const uint8_t* begin, size_t size) {
  // Only the timestamp is needed now; the parser reads the whole object later.
  std::string_view text(reinterpret_cast<const char*>(begin), size);
  int64_t ts = 0;
  auto raw = json::FindTopLevelScalar(text, "ts");
  if (!raw && !json::Parse(text)) {  // a malformed object (the fast scan gave up)
    ctx_->storage->stats.Increment(Stat::kJsonParseErrors);
    return;
  }
  if (raw) {
    std::optional<int64_t> ns;
    if (!raw->empty() && (*raw)[0] == '"') {
      if (auto v = json::Parse(*raw)) ns = json::MicrosToNanos(*v);
    } else {
      ns = json::MicrosTextToNanos(*raw);
    }
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
  e.aux = events_aux_;
  sorter_->Push(queue_, e);
  ++events_;
}

void JsonTokenizer::EndCapture(const uint8_t* data, size_t end) {
  std::string& buf = capture_ == kSystemText ? system_text_json_ : stack_frames_json_;
  buf.append(reinterpret_cast<const char*>(data) + capture_start_, end - capture_start_);
  capture_ = kNone;
  capture_start_ = SIZE_MAX;
}

uint64_t JsonTokenizer::system_trace_events() const {
  return system_text_ ? system_text_->units() : 0;
}

Status JsonTokenizer::Finish() {
  if (capture_ != kNone) {
    return ErrorStatus(std::string("JSON ended inside \"") +
                       (capture_ == kSystemText ? "systemTraceEvents" : "stackFrames") + "\"");
  }
  if (!stack_frames_json_.empty()) {
    size_t err = 0;
    stack_frames_ = json::Parse(stack_frames_json_, &err);
    if (!stack_frames_ || !stack_frames_->is_object()) {
      stack_frames_.reset();
      return ErrorStatus("\"stackFrames\": malformed JSON at byte " + std::to_string(err) +
                         " of the value");
    }
    stack_frames_json_ = std::string();
  }
  if (!system_text_json_.empty()) {
    size_t err = 0;
    auto v = json::Parse(system_text_json_, &err);
    system_text_json_ = std::string();
    if (!v || !v->is_string())
      return ErrorStatus("\"systemTraceEvents\": malformed JSON string at byte " +
                         std::to_string(err) + " of the value");
    system_text_.reset(new SystraceTextTokenizer(ctx_, sorter_));
    auto blob = TraceBlob::Allocate(v->str.size());
    memcpy(blob->data.get(), v->str.data(), v->str.size());
    blob->size = v->str.size();
    auto rest = system_text_->Feed(std::move(blob), 0);
    if (rest.ok() && *rest)
      system_text_->FinishLastLine(std::string_view(v->str).substr(v->str.size() - *rest));
  }
  return Status::Ok();
}

Result<size_t> JsonTokenizer::Feed(std::unique_ptr<TraceBlob> blob, uint64_t stream_offset) {
  const uint8_t* data = blob->data.get();
  size_t size = blob->size;
  size_t event_start = SIZE_MAX;  // offset in this blob of the open event's '{'
  for (size_t i = 0; i < size; ++i) {
    char c = static_cast<char>(data[i]);
    if (in_string_ && !escape_ && !capturing_key_) {
      // Skip the body of a string in one tight loop (most bytes are here).
      while (i < size && data[i] != '"' && data[i] != '\\') ++i;
      if (i == size) break;
      c = static_cast<char>(data[i]);
    }
    if (!in_string_ && !kStructural[data[i]]) {
      // Numbers, literals, whitespace: skip to the next byte that matters.
      while (++i < size && !kStructural[data[i]]) {
      }
      if (i == size) break;
      c = static_cast<char>(data[i]);
    }
    if (in_string_) {
      if (escape_) {
        escape_ = false;
      } else if (c == '\\') {
        escape_ = true;
      } else if (c == '"') {
        in_string_ = false;
        if (capture_ == kSystemText && depth_ == 1) EndCapture(data, i + 1);
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
        if (depth_ == 1 && pending_capture_ == kSystemText) {
          capture_ = kSystemText;
          capture_start_ = i;
          pending_capture_ = kNone;
        }
        if (depth_ == 1 && top_is_object_ && expect_key_) {
          capturing_key_ = true;
          key_.clear();
          expect_key_ = false;
        }
        break;
      case ':':
        if (depth_ == 1 && top_is_object_) {
          if (last_key_ == "systemTraceEvents")
            pending_capture_ = kSystemText;
          else if (last_key_ == "stackFrames")
            pending_capture_ = kStackFrames;
          else
            pending_capture_ = kNone;
        }
        if (depth_ == 1 && top_is_object_ && last_key_ != "traceEvents" &&
            last_key_ != "systemTraceEvents" && last_key_ != "displayTimeUnit" &&
            last_key_ != "metadata" && last_key_ != "stackFrames" && last_key_ != "samples") {
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
        } else if (depth_ == 1 && top_is_object_ && c == '[' &&
                   (last_key_ == "traceEvents" || last_key_ == "samples")) {
          events_depth_ = 2;
          events_aux_ = last_key_ == "samples" ? kJsonSampleAux : 0;
        } else if (depth_ == events_depth_ && c == '{') {
          event_start = i;
        } else if (depth_ == 1 && c == '{' && pending_capture_ == kStackFrames) {
          capture_ = kStackFrames;
          capture_start_ = i;
          pending_capture_ = kNone;
        }
        ++depth_;
        break;
      case '}':
      case ']':
        --depth_;
        if (depth_ < 0) {
          // Events before this byte point into the blob: keep it.
          retained_bytes_ += size;
          blobs_.push_back(std::move(blob));
          return ErrorStatus("byte offset " + std::to_string(stream_offset + i) + ": unbalanced '" +
                             std::string(1, c) + "' in JSON");
        }
        if (depth_ == 1 && c == '}' && capture_ == kStackFrames) EndCapture(data, i + 1);
        if (depth_ == events_depth_ && c == '}' && event_start != SIZE_MAX) {
          EmitEvent(data + event_start, i + 1 - event_start);
          event_start = SIZE_MAX;
        } else if (depth_ == events_depth_ - 1 && c == ']') {
          events_depth_ = -1;  // the events array closed
        }
        break;
      default:
        break;
    }
  }
  if (capture_ != kNone && capture_start_ != SIZE_MAX) {
    // The value continues in the next chunk: keep what this one holds.
    std::string& buf = capture_ == kSystemText ? system_text_json_ : stack_frames_json_;
    buf.append(reinterpret_cast<const char*>(data) + capture_start_, size - capture_start_);
    capture_start_ = 0;
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
