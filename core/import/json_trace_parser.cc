#include "core/import/json_trace_parser.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "core/import/args_tracker.h"
#include "core/import/import_logs.h"
#include "core/import/json_scanner.h"
#include "core/import/json_tokenizer.h"
#include "core/import/legacy_instant_tracks.h"
#include "core/import/process_tracker.h"
#include "core/import/profile_parser.h"
#include "core/import/profile_stack_tracker.h"
#include "core/import/slice_tracker.h"
#include "core/import/track_tracker.h"
#include "core/import/upstream_map_order.h"

namespace fathom {
namespace {

// One pass over the event object: the raw text of each key the parser uses.
// False when the object is malformed (json::Parse would reject it).
bool ReadFields(std::string_view text, JsonEventFields* f, std::string* scratch) {
  json::ObjectReader r(text, 0);
  std::string_view key, value;
  while (r.Next(&key, &value, scratch)) {
    std::string_view* slot = nullptr;
    switch (key.size()) {
      case 1:
        if (key[0] == 's') slot = &f->s;
        break;
      case 2:
        if (key == "ph")
          slot = &f->ph;
        else if (key == "id")
          slot = &f->id;
        else if (key == "sf")
          slot = &f->sf;
        else if (key == "bp")
          slot = &f->bp;
        break;
      case 3:
        if (key == "pid")
          slot = &f->pid;
        else if (key == "tid")
          slot = &f->tid;
        else if (key == "cat")
          slot = &f->cat;
        else if (key == "dur")
          slot = &f->dur;
        else if (key == "id2")
          slot = &f->id2;
        else if (key == "cpu")
          slot = &f->cpu;
        else if (key == "tts")
          slot = &f->tts;
        break;
      case 4:
        if (key == "name")
          slot = &f->name;
        else if (key == "args")
          slot = &f->args;
        else if (key == "tdur")
          slot = &f->tdur;
        break;
      case 7:
        if (key == "bind_id")
          slot = &f->bind_id;
        else if (key == "flow_in")
          slot = &f->flow_in;
        break;
      case 8:
        if (key == "flow_out") slot = &f->flow_out;
        break;
      default:
        break;
    }
    if (slot && slot->empty()) *slot = value;
  }
  if (!r.ok()) return false;
  // Only whitespace may follow the object.
  for (size_t i = r.consumed(); i < text.size(); ++i) {
    char c = text[i];
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return false;
  }
  return true;
}

// The text of a frame id ("sf", "parent"): a string's text or a number's
// digits; "" for anything else.
std::string FrameId(std::string_view raw, std::string* scratch) {
  std::string_view s;
  if (json::StringOf(raw, scratch, &s)) return std::string(s);
  if (json::TypeOf(raw) == json::RawType::kNumber) return std::string(raw);
  return "";
}

}  // namespace

JsonTraceParser::JsonTraceParser(TraceContext* ctx) : ctx_(ctx), async_tracks_(ctx) {}

uint32_t JsonTraceParser::UpdateThreadCached(int64_t tid, int64_t pid) {
  ProcessTracker* pt = ctx_->process_tracker.get();
  if (pt->has_pending_associations()) return pt->UpdateThread(tid, pid);
  uint64_t key = static_cast<uint64_t>(tid) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(pid);
  ThreadCacheEntry& e = thread_cache_[(key >> 56) & (kThreadCacheSize - 1)];
  if (e.generation == pt->generation() && e.tid == tid && e.pid == pid) return e.utid;
  uint32_t utid = pt->UpdateThread(tid, pid);
  // Cache only a state UpdateThread leaves alone (as FtraceParser does).
  if (!pt->has_pending_associations()) e = {pt->generation(), tid, pid, utid};
  return utid;
}

StringId JsonTraceParser::InternRaw(std::string_view raw, std::string* scratch) {
  size_t n = raw.size();
  if (n > 64) return ctx_->storage->Intern(Str(raw, scratch, ""));
  // Hash the first and last 8 bytes (all of a short name) and the length.
  uint64_t a = n, b = 0;
  if (n >= 8) {
    memcpy(&a, raw.data(), 8);
    memcpy(&b, raw.data() + n - 8, 8);
  } else {
    for (size_t i = 0; i < n; ++i) b = b << 8 | static_cast<uint8_t>(raw[i]);
  }
  uint64_t h = ((a * 0x9E3779B97F4A7C15ull) ^ b ^ n) * 0xC2B2AE3D27D4EB4Full;
  if (string_cache_.empty()) string_cache_.resize(kStringCacheSize);
  StringCacheEntry& e = string_cache_[h >> 55 & (kStringCacheSize - 1)];
  if (e.id != kNullStringId && e.raw == raw) return e.id;
  StringId id = ctx_->storage->Intern(Str(raw, scratch, ""));
  e.raw.assign(raw);
  e.id = id;
  return id;
}

std::string_view JsonTraceParser::Str(std::string_view raw, std::string* scratch,
                                      std::string_view fallback) {
  std::string_view out;
  if (json::StringOf(raw, scratch, &out)) return out;
  return fallback;
}

bool JsonTraceParser::AsyncIdKey(const JsonEventFields& e, std::string* key, bool* local) {
  // "id" wins; else id2's "global", else its "local". The id is a string or
  // an integer (the string "7" and the number 7 are different ids).
  std::string_view raw = e.id;
  *local = false;
  if (raw.empty()) {
    if (json::TypeOf(e.id2) != json::RawType::kObject) return false;
    std::string_view global, local_id;
    json::ObjectReader r(e.id2, 1);
    for (std::string_view k, inner; r.Next(&k, &inner, &key_buf_);) {
      if (k == "global" && global.empty()) global = inner;
      if (k == "local" && local_id.empty()) local_id = inner;
    }
    raw = !global.empty() ? global : local_id;
    *local = global.empty();
    if (raw.empty()) return false;
  }
  switch (json::TypeOf(raw)) {
    case json::RawType::kString:
      *key = "s:" + std::string(Str(raw, &tmp_buf_, ""));
      return true;
    case json::RawType::kNumber:
      if (json::HasFractionOrExponent(raw)) return false;
      *key = "n:" + std::string(raw);
      return true;
    default:
      return false;
  }
}

std::string JsonTraceParser::IdString(const JsonEventFields& e) {
  for (std::string_view raw : {e.id, e.id2}) {
    switch (json::TypeOf(raw)) {
      case json::RawType::kString:
        return std::string(Str(raw, &tmp_buf_, ""));
      case json::RawType::kNumber:
        if (raw.empty()) break;  // absent
        return std::string(raw);
      case json::RawType::kObject: {  // id2: {"local": ...} or {"global": ...}
        json::ObjectReader r(raw, 1);
        std::string_view k, inner;
        if (!r.Next(&k, &inner, &key_buf_)) break;
        std::string out(k);
        out += ':';
        if (json::TypeOf(inner) == json::RawType::kNumber)
          out += inner;
        else
          out += Str(inner, &tmp_buf_, "");
        return out;
      }
      default:
        break;
    }
  }
  return "";
}

int64_t JsonTraceParser::ResolveId(std::string_view raw, bool is_pid, std::string* label) {
  if (raw.empty()) return 0;
  // Plain digits (nearly every pid/tid), as json::AsInt reads them, without
  // an optional returned through memory.
  if (size_t i = raw[0] == '-' ? 1 : 0, n = raw.size(); n > i && n - i <= 18) {
    int64_t v = 0;
    for (; i < n && raw[i] >= '0' && raw[i] <= '9'; ++i) v = v * 10 + (raw[i] - '0');
    if (i == n) return raw[0] == '-' ? -v : v;
  }
  if (auto id = json::AsInt(raw)) return *id;
  std::string_view text;
  if (json::StringOf(raw, &tmp_buf_, &text)) {
    *label = std::string(text);
    std::string key = (is_pid ? "p:" : "t:") + *label;
    auto it = synthetic_ids_.find(key);
    if (it != synthetic_ids_.end()) return it->second;
    int64_t id = next_synthetic_id_++;
    synthetic_ids_.emplace(key, id);
    return id;
  }
  return 0;
}

void JsonTraceParser::AddArgsRecursive(ArgsTracker::Builder* b, std::string_view raw, int depth) {
  switch (json::TypeOf(raw)) {
    case json::RawType::kNull:
      break;
    case json::RawType::kBool:
      b->AddBool(key_, raw[0] == 't');
      break;
    case json::RawType::kNumber:
      if (!json::HasFractionOrExponent(raw)) {
        if (auto i = json::AsInt(raw)) {
          b->AddInt(key_, *i);
          break;
        }
      }
      b->AddReal(key_, json::NumberOf(raw));
      break;
    case json::RawType::kString:
      b->AddString(key_, Str(raw, &tmp_buf_, ""));
      break;
    case json::RawType::kArray: {
      size_t base = key_.size();
      json::ArrayReader r(raw, depth);
      std::string_view item;
      for (size_t i = 0; r.Next(&item); ++i) {
        key_.resize(base);
        key_ += '[';
        key_ += std::to_string(i);
        key_ += ']';
        AddArgsRecursive(b, item, depth + 1);
      }
      key_.resize(base);
      break;
    }
    case json::RawType::kObject: {
      size_t base = key_.size();
      json::ObjectReader r(raw, depth);
      std::string_view k, inner;
      while (r.Next(&k, &inner, &key_buf_)) {
        key_.resize(base);
        key_ += '.';
        key_ += k;
        AddArgsRecursive(b, inner, depth + 1);
      }
      key_.resize(base);
      break;
    }
  }
}

ArgsTracker::Builder JsonTraceParser::SliceArgs(std::string_view args) {
  auto b = ctx_->args_tracker->NewSet();
  if (json::TypeOf(args) != json::RawType::kObject) return b;
  json::ObjectReader r(args, 1);
  std::string_view k, v;
  while (r.Next(&k, &v, &key_buf_)) {
    key_.assign("args.");
    key_ += k;
    AddArgsRecursive(&b, v, 2);
  }
  return b;
}

void JsonTraceParser::BindFlowsV1(char phase, const JsonEventFields& e, uint32_t track) {
  // v1 flows are named by (category, name, id). "s" starts at the slice
  // enclosing it and "t" steps through one; "f" ends at the enclosing slice
  // only with "bp": "e", else at the next slice that begins on its thread.
  std::string id = std::string(Str(e.cat, &cat_buf_, ""));
  id += '/';
  id += Str(e.name, &name_buf_, "");
  id += '/';
  id += IdString(e);
  bool enclosing = phase != 'f' || Str(e.bp, &tmp_buf_, "") == "e";
  std::optional<uint32_t> slice;
  if (enclosing) {
    slice = ctx_->slice_tracker->GetTopmostOpen(track);
    if (!slice) return;
  }
  if (phase == 's') {
    open_flows_[id] = *slice;
    return;
  }
  auto it = open_flows_.find(id);
  if (it == open_flows_.end()) return;
  uint32_t source = it->second;
  if (phase == 'f') open_flows_.erase(it);
  if (!slice) {
    pending_flow_ends_[track].push_back(source);
    return;
  }
  ctx_->storage->flow.Insert(source, *slice);
  if (phase == 't') it->second = *slice;
}

void JsonTraceParser::BindPendingFlowEnds(uint32_t track, uint32_t slice) {
  auto it = pending_flow_ends_.find(track);
  if (it == pending_flow_ends_.end()) return;
  for (uint32_t source : it->second) ctx_->storage->flow.Insert(source, slice);
  pending_flow_ends_.erase(it);
}

void JsonTraceParser::BindFlowsV2(const JsonEventFields& e, uint32_t slice) {
  // A flow's id is "bind_id"; "flow_in" ends the flow at this slice (the
  // flow stays open: later slices may bind to the same source), then
  // "flow_out" makes this slice the id's source.
  bool in = e.flow_in == "true", out = e.flow_out == "true";
  if (!in && !out) return;
  std::string id;
  if (json::TypeOf(e.bind_id) == json::RawType::kString)
    id = Str(e.bind_id, &tmp_buf_, "");
  else if (json::TypeOf(e.bind_id) == json::RawType::kNumber && !e.bind_id.empty())
    id = e.bind_id;
  if (id.empty()) return;
  if (in) {
    auto it = v2_flow_sources_.find(id);
    if (it != v2_flow_sources_.end()) ctx_->storage->flow.Insert(it->second, slice);
  }
  if (out) v2_flow_sources_[id] = slice;
}

void JsonTraceParser::SetThreadTimes(const JsonEventFields& e, std::optional<uint32_t> slice) {
  if (!slice || e.tts.empty()) return;
  std::optional<int64_t> tts = json::MicrosToNanos(e.tts);
  if (!tts) return;
  SliceTable& t = ctx_->storage->slice;
  t.thread_ts.Set(*slice, *tts);
  if (e.tdur.empty()) return;
  if (std::optional<int64_t> tdur = json::MicrosToNanos(e.tdur)) t.thread_dur.Set(*slice, *tdur);
}

void JsonTraceParser::SetStackFrames(const json::Value* frames) {
  stack_frames_ = frames;
  frame_by_id_.clear();
  if (!frames) return;
  frame_by_id_.reserve(frames->members.size());
  for (const json::Member& m : frames->members) frame_by_id_.emplace(m.key, &m.value);
}

std::optional<uint32_t> JsonTraceParser::CallsiteOfFrame(const std::string& id) {
  // Walk up the parent links to the first frame with a callsite already (or
  // a root), without recursion: the file sets how long the chain is. A frame
  // whose parent is missing is a root; so is one whose parent link closes a
  // loop (each frame then appears once).
  std::vector<std::pair<std::string, const json::Value*>> chain;
  std::unordered_set<std::string> in_chain;
  std::optional<uint32_t> parent;
  for (std::string cur = id;;) {
    if (auto it = frame_callsites_.find(cur); it != frame_callsites_.end()) {
      parent = it->second;
      break;
    }
    auto found = frame_by_id_.find(cur);
    const json::Value* f = found == frame_by_id_.end() ? nullptr : found->second;
    if (!f || !f->is_object()) {
      frame_callsites_.emplace(cur, std::nullopt);
      break;
    }
    if (!in_chain.insert(cur).second) break;  // a loop
    chain.emplace_back(cur, f);
    const json::Value* p = f->Find("parent");
    if (!p) break;
    cur = p->is_string() ? p->str : std::string(p->number_text);
  }
  TraceStorage* s = ctx_->storage.get();
  StackProfileTracker* st = ctx_->profile_parser->stack_tracker();
  auto str_or_empty = [](const json::Value* v) { return v && v->is_string() ? v->str : ""; };
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const json::Value* f = it->second;
    // The frame's category (module, library) names its mapping.
    uint32_t mapping = st->InternMapping(kNullStringId, 0, 0, 0, 0, 0,
                                         s->Intern(str_or_empty(f->Find("category"))));
    uint32_t frame =
        st->InternFrame(mapping, 0, s->Intern(str_or_empty(f->Find("name"))), kNullStringId);
    parent = st->InternCallsite(parent, frame);
    frame_callsites_.emplace(it->first, parent);
  }
  return frame_callsites_.at(id);
}

void JsonTraceParser::ParseSample(const JsonEventFields& e, int64_t ts, uint32_t utid) {
  // "sf" names the sample's leaf frame in "stackFrames".
  std::optional<uint32_t> callsite;
  if (!e.sf.empty()) callsite = CallsiteOfFrame(FrameId(e.sf, &tmp_buf_));
  std::optional<uint32_t> cpu;
  if (!e.cpu.empty()) {
    if (auto v = json::AsInt(e.cpu); v && *v >= 0) cpu = static_cast<uint32_t>(*v);
  }
  TraceStorage* s = ctx_->storage.get();
  if (user_mode_ == kNullStringId) user_mode_ = s->Intern("user");
  s->profile.perf_sample.Insert(ts, utid, cpu, user_mode_, callsite, kNullStringId);
}

void JsonTraceParser::ParseTopLevelSample(int64_t ts, std::string_view text) {
  // {"cpu", "tid", "ts", "name", "sf", "weight"}: no pid, so the thread is
  // found (or created) by tid alone; it joins its process when an event
  // names both.
  JsonEventFields f;
  if (!ReadFields(text, &f, &key_buf_)) {
    ctx_->storage->stats.Increment(Stat::kJsonParseErrors);
    return;
  }
  std::string label;
  int64_t tid = ResolveId(f.tid, false, &label);
  uint32_t utid = ctx_->process_tracker->GetOrCreateThread(tid);
  TraceStorage* s = ctx_->storage.get();
  if (!label.empty() && s->thread.name[utid] == kNullStringId)
    s->thread.name.Set(utid, s->Intern(label));
  ParseSample(f, ts, utid);
}

void JsonTraceParser::ParseEvent(int64_t ts, proto::Bytes bytes, uint32_t aux) {
  if (aux == kJsonSampleAux) {
    FlushSameTs();
    ParseTopLevelSample(ts, bytes.AsString());
    return;
  }
  if (!held_.empty() && held_.front().ts != ts) FlushSameTs();
  HeldEvent& h = held_.emplace_back();
  h.ts = ts;
  if (!ReadFields(bytes.AsString(), &h.fields, &key_buf_)) {
    held_.pop_back();
    ctx_->storage->stats.Increment(Stat::kJsonParseErrors);
    return;
  }
  const JsonEventFields& e = h.fields;
  h.order_dur = 0;
  // The phase is the first character of "ph" (as HandleEvent reads it).
  if (e.ph.size() >= 3 && e.ph[0] == '"' && e.ph[1] == 'X' && !e.dur.empty()) {
    h.x_dur = json::MicrosToNanos(e.dur);
    h.order_dur = h.x_dur.value_or(0);
  }
}

void JsonTraceParser::Flush() {
  FlushSameTs();
  FlushSortHints();
  FlushCounters();
}

void JsonTraceParser::FlushSameTs() {
  if (held_.size() > 1) {
    std::stable_sort(held_.begin(), held_.end(), [](const HeldEvent& a, const HeldEvent& b) {
      return a.order_dur > b.order_dur;
    });
  }
  for (const HeldEvent& h : held_) HandleEvent(h.ts, h.fields, h.x_dur);
  held_.clear();
}

std::optional<double> JsonTraceParser::CounterValue(std::string_view raw) {
  json::RawType type = json::TypeOf(raw);
  if (type == json::RawType::kNumber) return json::NumberOf(raw);
  if (type != json::RawType::kString) return std::nullopt;
  // A string counts only when all of it is a number (strtod's syntax:
  // leading spaces, hex, inf/nan): "1.5e", "+" or "5 " are no value.
  num_buf_.assign(Str(raw, &tmp_buf_, ""));
  const char* begin = num_buf_.c_str();
  char* end = nullptr;
  double v = strtod(begin, &end);
  if (end == begin || *end != '\0') return std::nullopt;
  return v;
}

void JsonTraceParser::LogFailure(int64_t ts, const JsonEventFields& e) {
  auto args = ctx_->args_tracker->NewSet()
                  .AddString("event_name", Str(e.name, &name_buf_, ""))
                  .AddString("event_phase", Str(e.ph, &ph_buf_, ""));
  LogImportProblem(ctx_->storage.get(), Stat::kJsonParseErrors, ts, std::move(args));
}

void JsonTraceParser::ParseCounterEvent(int64_t ts, const JsonEventFields& e, uint32_t utid) {
  if (json::TypeOf(e.args) != json::RawType::kObject) {
    LogFailure(ts, e);
    return;
  }
  TraceStorage* s = ctx_->storage.get();
  std::string prefix(Str(e.name, &name_buf_, ""));
  // Only a string "id" names a series (a number, or id2, does not).
  std::string_view id =
      json::TypeOf(e.id) == json::RawType::kString ? Str(e.id, &tmp_buf_, "") : std::string_view();
  if (!id.empty()) {
    prefix += " id: ";
    prefix += id;
  }
  json::ObjectReader r(e.args, 1);
  std::string_view k, v;
  while (r.Next(&k, &v, &key_buf_)) {
    std::optional<double> value = CounterValue(v);
    if (!value) {
      LogFailure(ts, e);
      continue;
    }
    std::string track_name = prefix;
    track_name += ' ';
    track_name += k;
    pending_counters_.push_back({ts, *value, s->Intern(track_name), utid});
  }
}

void JsonTraceParser::FlushCounters() {
  TraceStorage* s = ctx_->storage.get();
  TrackTracker* tracks = ctx_->track_tracker.get();
  StringId type = s->Intern("json_counter");
  for (const PendingCounter& c : pending_counters_) {
    uint32_t upid = *ctx_->process_tracker->GetUpidOfThread(c.utid);
    uint32_t track = tracks->InternProcessCounterTrack(
        upid, c.name, type, TrackDims().Str("name", s->GetString(c.name)));
    tracks->PushCounter(c.ts, c.value, track);
  }
  pending_counters_.clear();
}

void JsonTraceParser::ParseMetadataEvent(const JsonEventFields& e, uint32_t upid, uint32_t utid) {
  if (json::TypeOf(e.args) != json::RawType::kObject) return;
  std::string_view meta = Str(e.name, &name_buf_, "");
  // The args member each kind reads (the first of that key).
  std::string_view wanted;
  if (meta == "process_name" || meta == "thread_name")
    wanted = "name";
  else if (meta == "process_sort_index" || meta == "thread_sort_index")
    wanted = "sort_index";
  else
    return;
  std::string_view value;
  bool found = false;
  json::ObjectReader r(e.args, 1);
  for (std::string_view k; r.Next(&k, &value, &key_buf_);) {
    if (k == wanted) {
      found = true;
      break;
    }
  }
  if (!found) return;
  TraceStorage* s = ctx_->storage.get();
  if (wanted == "name") {
    std::string_view n;
    if (!json::StringOf(value, &tmp_buf_, &n)) return;  // a name must be a string
    if (meta == "process_name")
      s->process.name.Set(upid, s->Intern(n));
    else
      ctx_->process_tracker->SetThreadName(utid, s->Intern(n));
    return;
  }
  // Sort-order hints for UIs, kept as an arg of the process or thread when
  // the trace ends (the first hint of each wins).
  std::optional<int64_t> hint = json::AsInt(value);
  if (!hint) return;
  SortHints& hints = meta == "process_sort_index" ? process_hints_ : thread_hints_;
  uint32_t id = meta == "process_sort_index" ? upid : utid;
  if (hints.value.emplace(id, *hint).second) hints.order.push_back(id);
}

void JsonTraceParser::FlushSortHints() {
  // Processes, then threads, each in the order of the reference's hash map
  // of them.
  TraceStorage* s = ctx_->storage.get();
  for (uint32_t upid : UpstreamMapOrder(process_hints_.order, UpstreamKey::kInteger)) {
    auto b = ctx_->args_tracker->NewSet();
    b.AddInt("process_sort_index_hint", process_hints_.value[upid]);
    if (auto set = b.CommitMerged(s->process.arg_set_id.Get(upid)))
      s->process.arg_set_id.Set(upid, *set);
  }
  for (uint32_t utid : UpstreamMapOrder(thread_hints_.order, UpstreamKey::kInteger)) {
    auto b = ctx_->args_tracker->NewSet();
    b.AddInt("thread_sort_index_hint", thread_hints_.value[utid]);
    if (auto set = b.CommitMerged(s->thread.arg_set_id.Get(utid)))
      s->thread.arg_set_id.Set(utid, *set);
  }
  process_hints_ = {};
  thread_hints_ = {};
}

void JsonTraceParser::ParseAsyncEvent(int64_t ts, const JsonEventFields& e, uint32_t upid,
                                      StringId cat, StringId name) {
  // An event needs a pid and an id; the trace id is the category with the
  // id (a "local" one also with the process, see LegacyAsyncTracks).
  bool local = false;
  std::string id_key;
  if (e.pid.empty() || !AsyncIdKey(e, &id_key, &local)) {
    LogFailure(ts, e);
    return;
  }
  std::string trace_id(Str(e.cat, &cat_buf_, ""));
  trace_id += '\0';
  trace_id += id_key;
  char ph = e.ph[1];
  LegacyAsyncTracks::Kind kind = ph == 'b'   ? LegacyAsyncTracks::Kind::kBegin
                                 : ph == 'e' ? LegacyAsyncTracks::Kind::kEnd
                                             : LegacyAsyncTracks::Kind::kInstant;
  uint32_t track = async_tracks_.Track({kind, upid, name, kNullStringId, trace_id, local});
  SliceTracker* slices = ctx_->slice_tracker.get();
  if (ph == 'b')
    slices->Begin(ts, track, cat, name, SliceArgs(e.args));
  else if (ph == 'e')  // closes the innermost open slice of its name and category (as E)
    slices->End(ts, track, Str(e.cat, &cat_buf_, "").empty() ? kNullStringId : cat,
                Str(e.name, &name_buf_, "").empty() ? kNullStringId : name, SliceArgs(e.args));
  else
    slices->Scoped(ts, track, cat, name, 0, SliceArgs(e.args));
}

void JsonTraceParser::ParseInstantEvent(int64_t ts, const JsonEventFields& e, uint32_t upid,
                                        uint32_t utid, StringId cat, StringId name) {
  // "g" and "p" instants need no thread ("p" needs a pid); any other scope
  // (or none) is a thread instant, which needs a tid.
  std::string_view scope = Str(e.s, &tmp_buf_, "t");
  uint32_t track;
  if (scope == "g" || scope == "p") {
    if (scope == "p" && e.pid.empty()) {
      LogFailure(ts, e);
      return;
    }
    track = scope == "g" ? LegacyGlobalInstantTrack(ctx_) : LegacyProcessInstantTrack(ctx_, upid);
  } else {
    if (e.tid.empty()) {
      LogFailure(ts, e);
      return;
    }
    track = ctx_->track_tracker->InternThreadTrack(utid);
  }
  std::optional<uint32_t> slice =
      ctx_->slice_tracker->Scoped(ts, track, cat, name, 0, SliceArgs(e.args));
  OnSliceBegin(track, slice);
}

void JsonTraceParser::ParseThreadStateEvent(int64_t ts, const JsonEventFields& e, uint32_t utid) {
  // "T": the thread was in state `name` for `dur` (needed). "io_wait" (an
  // integer) and "blocked_function" (a string) args fill those columns; a
  // "Running" state with an integer "cpu" arg is also a sched slice there.
  std::optional<int64_t> dur = e.dur.empty() ? std::nullopt : json::MicrosToNanos(e.dur);
  if (!dur) {
    ctx_->storage->stats.Increment(Stat::kJsonParseErrors);
    return;
  }
  TraceStorage* s = ctx_->storage.get();
  std::string_view state = Str(e.name, &name_buf_, "");
  StringId state_id = s->Intern(state);
  uint32_t row = s->thread_state.Insert(ts, *dur, std::nullopt, utid, state_id);
  std::optional<int64_t> cpu;
  if (json::TypeOf(e.args) == json::RawType::kObject) {
    json::ObjectReader r(e.args, 1);
    std::string_view k, v;
    while (r.Next(&k, &v, &key_buf_)) {
      bool integer = json::TypeOf(v) == json::RawType::kNumber && !json::HasFractionOrExponent(v);
      if (k == "io_wait" && integer) {
        if (auto i = json::AsInt(v)) s->thread_state.io_wait.Set(row, *i);
      } else if (k == "blocked_function" && json::TypeOf(v) == json::RawType::kString) {
        s->thread_state.blocked_function.Set(row, s->Intern(Str(v, &tmp_buf_, "")));
      } else if (k == "cpu" && integer) {
        cpu = json::AsInt(v);
      }
    }
  }
  if (state == "Running" && cpu && *cpu >= 0 && *cpu <= UINT16_MAX)
    s->sched.Insert(ts, *dur, static_cast<uint32_t>(*cpu), utid, kNullStringId, 0);
}

void JsonTraceParser::LogSpill(int64_t ts, StringId name, uint32_t conflict) {
  // Which event moved, and the slice of its thread it partially overlaps.
  TraceStorage* s = ctx_->storage.get();
  int64_t conflict_ts = s->slice.ts[conflict];
  int64_t conflict_dur = s->slice.dur[conflict];
  auto args = ctx_->args_tracker->NewSet()
                  .AddString("event_name", name)
                  .AddString("event_phase", "X")
                  .AddInt("overlap_start", ts)
                  .AddInt("overlap_end", conflict_ts + conflict_dur)
                  .AddString("conflicting_slice_name", s->slice.name[conflict])
                  .AddInt("conflicting_slice_ts", conflict_ts)
                  .AddInt("conflicting_slice_dur", conflict_dur);
  LogImportProblem(s, Stat::kSliceSpillOverlappingComplete, ts, std::move(args));
}

std::optional<uint32_t> JsonTraceParser::SpillComplete(int64_t ts, uint32_t utid, StringId cat,
                                                       StringId name, int64_t dur,
                                                       std::string_view args, uint32_t conflict) {
  // A complete event that partially overlaps a slice of its thread cannot
  // nest there: it goes to the first of the thread's overflow tracks where
  // it fits (a new one when none does), as upstream, instead of being lost.
  // The thread's overflow tracks are one track group, each with its index
  // as a dimension.
  // The move is logged before its track is made (as the reference numbers
  // their arg sets).
  LogSpill(ts, name, conflict);
  SpillTracks& group = spill_tracks_[utid];
  std::vector<uint32_t>& spill = group.tracks;
  SliceTracker* slices = ctx_->slice_tracker.get();
  for (size_t i = 0;; ++i) {
    if (i == spill.size()) {
      TraceStorage* s = ctx_->storage.get();
      TrackTracker* tt = ctx_->track_tracker.get();
      uint32_t track = tt->CreateTrack(false, kNullStringId, s->Intern("thread_overlapping_slice"),
                                       utid, std::nullopt, std::nullopt);
      auto dims = ctx_->args_tracker->NewSet()
                      .AddInt("utid", utid)
                      .AddInt("track_compressor_idx", static_cast<int64_t>(i));
      if (auto set = dims.Commit()) s->track.dimension_arg_set_id.Set(track, *set);
      if (i == 0) group.track_group_id = tt->NewTrackGroup();
      s->track.track_group_id.Set(track, group.track_group_id);
      spill.push_back(track);
    }
    std::optional<uint32_t> slice = slices->Scoped(ts, spill[i], cat, name, dur, SliceArgs(args));
    if (slice) return slice;
    if (!slices->last_start_overlapped()) return std::nullopt;  // dropped for another reason
  }
}

void JsonTraceParser::HandleEvent(int64_t ts, const JsonEventFields& e,
                                  std::optional<int64_t> x_dur) {
  std::string_view ph = Str(e.ph, &ph_buf_, "");
  if (ph.empty()) {
    ctx_->storage->stats.Increment(Stat::kJsonParseErrors);
    return;
  }
  TraceStorage* s = ctx_->storage.get();
  ProcessTracker* pt = ctx_->process_tracker.get();
  std::string pid_label, tid_label;
  int64_t pid = ResolveId(e.pid, true, &pid_label);
  // No tid, or tid 0, means the process's main thread.
  int64_t tid = !e.tid.empty() ? ResolveId(e.tid, false, &tid_label) : 0;
  if (tid == 0) tid = pid;
  uint32_t utid = UpdateThreadCached(tid, pid);
  uint32_t upid = *pt->GetUpidOfThread(utid);
  if (!pid_label.empty() && s->process.name[upid] == kNullStringId)
    s->process.name.Set(upid, s->Intern(pid_label));
  if (!tid_label.empty() && s->thread.name[utid] == kNullStringId)
    s->thread.name.Set(utid, s->Intern(tid_label));

  StringId name = InternRaw(e.name, &name_buf_);
  StringId cat = !e.cat.empty() ? InternRaw(e.cat, &cat_buf_) : kNullStringId;
  std::string_view args = e.args;
  SliceTracker* slices = ctx_->slice_tracker.get();
  TrackTracker* tracks = ctx_->track_tracker.get();

  switch (ph[0]) {
    case 'B': {
      uint32_t track = tracks->InternThreadTrack(utid);
      std::optional<uint32_t> slice = slices->Begin(ts, track, cat, name, SliceArgs(args));
      SetThreadTimes(e, slice);
      if (slice) BindFlowsV2(e, *slice);
      OnSliceBegin(track, slice);
      break;
    }
    case 'E': {
      // An end closes the innermost open slice with its name and category;
      // a missing (or empty) one matches any.
      uint32_t track = tracks->InternThreadTrack(utid);
      StringId end_name = Str(e.name, &name_buf_, "").empty() ? kNullStringId : name;
      StringId end_cat = Str(e.cat, &cat_buf_, "").empty() ? kNullStringId : cat;
      std::optional<uint32_t> slice = slices->End(ts, track, end_cat, end_name, SliceArgs(args));
      if (slice && !e.tts.empty() && !s->slice.thread_ts.IsNull(*slice)) {
        if (std::optional<int64_t> tts = json::MicrosToNanos(e.tts))
          s->slice.thread_dur.Set(*slice, *tts - *s->slice.thread_ts.Get(*slice));
      }
      break;
    }
    case 'X': {
      // A complete event needs a valid duration (one with no "dur" at all is
      // a parser failure; an unreadable one the tokenizer counted).
      if (!x_dur) {
        if (e.dur.empty()) LogFailure(ts, e);
        break;
      }
      uint32_t track = tracks->InternThreadTrack(utid);
      std::optional<uint32_t> slice = slices->Scoped(ts, track, cat, name, *x_dur, SliceArgs(args));
      if (!slice && slices->last_start_overlapped())
        slice = SpillComplete(ts, utid, cat, name, *x_dur, args, slices->last_overlap_conflict());
      SetThreadTimes(e, slice);
      if (slice) BindFlowsV2(e, *slice);
      OnSliceBegin(track, slice);
      break;
    }
    case 'I':
    case 'i':
    case 'R':
      ParseInstantEvent(ts, e, upid, utid, cat, name);
      break;
    case 'C':
      ParseCounterEvent(ts, e, utid);
      break;
    case 'M':
      ParseMetadataEvent(e, upid, utid);
      break;
    case 'b':
    case 'e':
    case 'n':
      ParseAsyncEvent(ts, e, upid, cat, name);
      break;
    case 's':
    case 't':
    case 'f':
      BindFlowsV1(ph[0], e, tracks->InternThreadTrack(utid));
      break;
    case 'P':
      ParseSample(e, ts, utid);
      break;
    case 'T':
      ParseThreadStateEvent(ts, e, utid);
      break;
    default:
      s->stats.Increment(Stat::kJsonUnsupportedEvents);
      break;
  }
}

}  // namespace fathom
