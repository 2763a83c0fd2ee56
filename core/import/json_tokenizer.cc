#include "core/import/json_tokenizer.h"

#include <array>
#include <cstring>
#include <string_view>

#include "core/import/json_scanner.h"
#include "core/import/json_value.h"
#include "core/import/metadata_writer.h"

namespace fathom {
namespace {

// The bytes the scanner acts on outside strings.
constexpr auto kStructural = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : std::string_view("\"{}[]:,")) t[c] = true;
  return t;
}();

// Scans one event object from its '{' at `p`: returns the byte after the
// bracket that closes it (nullptr when that is not before `end`), with
// *by_brace false when that bracket is a ']' (a malformed event the caller
// skips, as the byte scanner did). Depth counts '{' and '[' alike, as the
// byte scanner's. On the way, *ts gets the raw text of the first top-level
// "ts" value when every member before it is plain "key": value JSON, which
// is exactly when json::FindTopLevelScalar returns that same text; else it
// stays empty and the caller asks FindTopLevelScalar.
const uint8_t* ScanEvent(const uint8_t* p, const uint8_t* end, std::string_view* ts,
                         bool* by_brace) {
  // Where the top-level member walk is: expecting a key, the ':' after it,
  // its value, or the ',' after the value; kStop once ts is found or the
  // members are not plain.
  enum { kKey, kColon, kValue, kAfter, kStop } st = kKey;
  bool ts_key = false;
  int depth = 1;
  auto is_space = [](uint8_t c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
  for (const uint8_t* q = p + 1; q < end;) {
    uint8_t c = *q;
    if (c == '"') {
      const char* s = reinterpret_cast<const char*>(q) + 1;
      const char* e = reinterpret_cast<const char*>(end);
      for (;;) {
        s = json::FindQuoteOrBackslash(s, e);
        if (s >= e) return nullptr;
        if (*s == '"') break;
        s += 2;  // an escape: the next byte is never the closing quote
      }
      if (depth == 1 && st != kStop) {
        if (st == kKey) {
          ts_key = s - reinterpret_cast<const char*>(q) == 3 && q[1] == 't' && q[2] == 's';
          st = kColon;
        } else if (st == kValue && ts_key) {
          *ts = std::string_view(reinterpret_cast<const char*>(q),
                                 static_cast<size_t>(s + 1 - reinterpret_cast<const char*>(q)));
          st = kStop;
        } else {
          st = st == kValue ? kAfter : kStop;
        }
      }
      q = reinterpret_cast<const uint8_t*>(s) + 1;
      continue;
    }
    if (!kStructural[c]) {
      if (depth != 1 || st == kStop || is_space(c)) {
        ++q;
        continue;
      }
      // A scalar member value (number, literal) ends at ',', '}' or space
      // for FindTopLevelScalar; any other end means the members are not plain.
      const uint8_t* v = q;
      while (q < end && !kStructural[*q] && !is_space(*q)) ++q;
      if (q == end) return nullptr;
      if (st != kValue || !(*q == ',' || *q == '}' || is_space(*q))) {
        st = kStop;
      } else if (ts_key) {
        *ts = std::string_view(reinterpret_cast<const char*>(v), static_cast<size_t>(q - v));
        st = kStop;
      } else {
        st = kAfter;
      }
      continue;
    }
    switch (c) {
      case '{':
      case '[':
        if (depth == 1 && st != kStop) st = st == kValue && !ts_key ? kAfter : kStop;
        ++depth;
        break;
      case '}':
      case ']':
        if (--depth == 0) {
          *by_brace = c == '}';
          return q + 1;
        }
        break;
      case ':':
        if (depth == 1 && st != kStop) st = st == kColon ? kValue : kStop;
        break;
      case ',':
        if (depth == 1 && st != kStop) st = st == kAfter ? kKey : kStop;
        break;
    }
    ++q;
  }
  return nullptr;
}

}  // namespace

JsonTokenizer::JsonTokenizer(TraceContext* ctx, Sorter* sorter) : ctx_(ctx), sorter_(sorter) {
  queue_ = sorter_->SequenceQueue(0xFFFFFFFFu);
}

void JsonTokenizer::EmitEvent(const uint8_t* begin, size_t size, std::string_view ts_raw) {
  // Only the timestamp is needed now; the parser reads the whole object later.
  std::string_view text(reinterpret_cast<const char*>(begin), size);
  int64_t ts = 0;
  std::optional<std::string_view> raw;
  if (!ts_raw.empty())
    raw = ts_raw;
  else
    raw = json::FindTopLevelScalar(text, "ts");
  if (!raw && !json::Parse(text)) {  // a malformed object (the fast scan gave up)
    ctx_->storage->stats.Increment(Stat::kJsonTokenizerFailure);
    return;
  }
  if (raw) {
    bool ok = false;
    if (!raw->empty() && (*raw)[0] == '"') {
      if (auto v = json::Parse(*raw)) {
        std::optional<int64_t> ns = json::MicrosToNanos(*v);
        if ((ok = ns.has_value())) ts = *ns;
      }
    } else {
      ok = json::MicrosTextToNanos(*raw, &ts);
    }
    if (!ok) {
      // Metadata ("M") events need no time: they are kept (at 0) whatever
      // their "ts" holds; any other event with a bad "ts" is dropped.
      std::optional<std::string_view> ph = json::FindTopLevelScalar(text, "ph");
      if (!ph || *ph != "\"M\"") {
        ctx_->storage->stats.Increment(Stat::kJsonTokenizerFailure);
        return;
      }
      ts = 0;
    }
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

std::string& JsonTokenizer::CaptureBuffer() {
  if (capture_ == kSystemText) return system_text_json_;
  return capture_ == kStackFrames ? stack_frames_json_ : metadata_json_;
}

void JsonTokenizer::EndCapture(const uint8_t* data, size_t end) {
  std::string& buf = CaptureBuffer();
  buf.append(reinterpret_cast<const char*>(data) + capture_start_, end - capture_start_);
  capture_ = kNone;
  capture_start_ = SIZE_MAX;
}

void JsonTokenizer::WriteTraceMetadata() {
  if (metadata_json_.empty()) return;
  MetadataWriter writer(ctx_->storage.get());
  json::ObjectReader r(metadata_json_, 0);
  std::string scratch, name, text;
  std::string_view key, value;
  while (r.Next(&key, &value, &scratch)) {
    name.assign("json_metadata.");
    name += key;
    switch (json::TypeOf(value)) {
      case json::RawType::kNull:
        break;  // no row
      case json::RawType::kBool:
        writer.SetInt(name, value[0] == 't' ? 1 : 0);
        break;
      case json::RawType::kString: {
        std::string_view s;
        if (json::StringOf(value, &text, &s)) writer.SetString(name, s);
        break;
      }
      case json::RawType::kNumber:
        if (!json::HasFractionOrExponent(value)) {
          if (auto i = json::AsInt(value)) {
            writer.SetInt(name, *i);
            break;
          }
        }
        writer.SetString(name, value);
        break;
      default:  // objects and arrays: their JSON text, without layout spaces
        writer.SetString(name, json::Compact(value));
        break;
    }
  }
  if (!r.ok()) ctx_->storage->stats.Increment(Stat::kJsonTokenizerFailure);
  metadata_json_ = std::string();
}

uint64_t JsonTokenizer::system_trace_events() const {
  return system_text_ ? system_text_->units() : 0;
}

Status JsonTokenizer::Finish() {
  if (capture_ != kNone) {
    const char* key = capture_ == kSystemText    ? "systemTraceEvents"
                      : capture_ == kStackFrames ? "stackFrames"
                                                 : "metadata";
    return ErrorStatus(std::string("JSON ended inside \"") + key + "\"");
  }
  WriteTraceMetadata();
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
    system_text_.reset(new SystraceTextTokenizer(sorter_, ctx_));
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
          else if (last_key_ == "metadata")
            pending_capture_ = kMetadata;
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
        if (depth_ == events_depth_ && c == '{') {
          // An event: found whole by a tighter loop that also reads "ts".
          std::string_view ts;
          bool by_brace = false;
          const uint8_t* end = ScanEvent(data + i, data + size, &ts, &by_brace);
          event_start = i;  // kept when the event is cut off or malformed
          if (!end) {
            i = size - 1;  // continues in the next chunk: rewound below
            continue;
          }
          size_t len = static_cast<size_t>(end - (data + i));
          if (by_brace) {
            EmitEvent(data + i, len, ts);
            event_start = SIZE_MAX;
          }
          i += len - 1;
          continue;
        }
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
        } else if (depth_ == 1 && c == '{' &&
                   (pending_capture_ == kStackFrames || pending_capture_ == kMetadata)) {
          capture_ = pending_capture_;
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
        if (depth_ == 1 && c == '}' && (capture_ == kStackFrames || capture_ == kMetadata))
          EndCapture(data, i + 1);
        if (depth_ == events_depth_ && c == '}' && event_start != SIZE_MAX) {
          EmitEvent(data + event_start, i + 1 - event_start, {});
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
    std::string& buf = CaptureBuffer();
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
