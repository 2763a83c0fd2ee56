#include "core/import/json_trace_parser.h"

#include "core/import/args_tracker.h"
#include "core/import/process_tracker.h"
#include "core/import/profile_parser.h"
#include "core/import/profile_stack_tracker.h"
#include "core/import/slice_tracker.h"
#include "core/import/track_tracker.h"

namespace fathom {
namespace {

// A view of the string value (valid while the event's Value lives): the hot
// fields (ph, name, cat) are only compared or interned, never kept.
std::string_view ViewOr(const json::Value* v, const char* fallback) {
  if (v && v->is_string()) return v->str;
  return fallback;
}

std::string StringOr(const json::Value* v, const char* fallback) {
  if (v && v->is_string()) return v->str;
  return fallback;
}

std::string IdString(const json::Value& e) {
  for (const char* key : {"id", "id2"}) {
    const json::Value* v = e.Find(key);
    if (!v) continue;
    if (v->is_string()) return v->str;
    if (v->is_number()) return std::string(v->number_text);
    if (v->is_object()) {  // id2: {"local": ...} or {"global": ...}
      for (const auto& [k, inner] : v->members)
        return k + ":" + (inner.is_string() ? inner.str : std::string(inner.number_text));
    }
  }
  return "";
}

}  // namespace

JsonTraceParser::JsonTraceParser(TraceContext* ctx) : ctx_(ctx) {}

int64_t JsonTraceParser::ResolveId(const json::Value* v, bool is_pid, std::string* label) {
  if (!v) return 0;
  if (auto id = json::AsInt(*v)) return *id;
  if (v->is_string()) {
    *label = v->str;
    std::string key = (is_pid ? "p:" : "t:") + v->str;
    auto it = synthetic_ids_.find(key);
    if (it != synthetic_ids_.end()) return it->second;
    int64_t id = next_synthetic_id_++;
    synthetic_ids_.emplace(key, id);
    return id;
  }
  return 0;
}

void JsonTraceParser::AddArgsRecursive(ArgsTracker::Builder* b, const std::string& key,
                                       const json::Value& v) {
  switch (v.type) {
    case json::Value::kNull:
      break;
    case json::Value::kBool:
      b->AddBool(key, v.b);
      break;
    case json::Value::kNumber:
      if (v.number_text.find_first_of(".eE") == std::string_view::npos) {
        if (auto i = json::AsInt(v)) {
          b->AddInt(key, *i);
          break;
        }
      }
      b->AddReal(key, v.number);
      break;
    case json::Value::kString:
      b->AddString(key, v.str);
      break;
    case json::Value::kArray:
      for (size_t i = 0; i < v.items.size(); ++i)
        AddArgsRecursive(b, key + "[" + std::to_string(i) + "]", v.items[i]);
      break;
    case json::Value::kObject:
      for (const auto& [k, inner] : v.members) AddArgsRecursive(b, key + "." + k, inner);
      break;
  }
}

std::optional<uint32_t> JsonTraceParser::AddArgs(const json::Value* args) {
  if (!args || !args->is_object() || args->members.empty()) return std::nullopt;
  auto b = ctx_->args_tracker->NewSet();
  for (const auto& [k, v] : args->members) AddArgsRecursive(&b, "args." + k, v);
  return b.Commit();
}

void JsonTraceParser::BindFlowsV1(char phase, const json::Value& e, uint32_t track, int64_t ts) {
  // v1 flows bind to the slice open on the thread at the event's time
  // ("s" starts, "t" steps, "f" finishes).
  auto slice = ctx_->slice_tracker->GetTopmostOpen(track);
  if (!slice) return;
  std::string id = StringOr(e.Find("cat"), "") + "/" + IdString(e);
  if (phase == 's') {
    open_flows_[id] = *slice;
    return;
  }
  auto it = open_flows_.find(id);
  if (it == open_flows_.end()) return;
  ctx_->storage->flow.Insert(it->second, *slice);
  if (phase == 't')
    it->second = *slice;
  else
    open_flows_.erase(it);
}

std::optional<uint32_t> JsonTraceParser::CallsiteOfFrame(const std::string& id, int depth) {
  auto it = frame_callsites_.find(id);
  if (it != frame_callsites_.end()) return it->second;
  std::optional<uint32_t> callsite;
  const json::Value* f = stack_frames_ ? stack_frames_->Find(id) : nullptr;
  // A parent chain deeper than any real stack is a cycle.
  if (f && f->is_object() && depth < 4096) {
    std::optional<uint32_t> parent;
    if (const json::Value* p = f->Find("parent")) {
      std::string pid = p->is_string() ? p->str : std::string(p->number_text);
      parent = CallsiteOfFrame(pid, depth + 1);
    }
    TraceStorage* s = ctx_->storage.get();
    StackProfileTracker* st = ctx_->profile_parser->stack_tracker();
    // The frame's category (module, library) names its mapping.
    uint32_t mapping = st->InternMapping(kNullStringId, 0, 0, 0, 0, 0,
                                         s->Intern(StringOr(f->Find("category"), "")));
    uint32_t frame =
        st->InternFrame(mapping, 0, s->Intern(StringOr(f->Find("name"), "")), kNullStringId);
    callsite = st->InternCallsite(parent, frame);
  }
  frame_callsites_.emplace(id, callsite);
  return callsite;
}

void JsonTraceParser::ParseSample(const json::Value& e, int64_t ts, uint32_t utid) {
  // P: a CPU sample; "sf" names its leaf frame in "stackFrames".
  std::optional<uint32_t> callsite;
  if (const json::Value* sf = e.Find("sf"))
    callsite = CallsiteOfFrame(sf->is_string() ? sf->str : std::string(sf->number_text));
  std::optional<uint32_t> cpu;
  if (const json::Value* c = e.Find("cpu")) {
    if (auto v = json::AsInt(*c); v && *v >= 0) cpu = static_cast<uint32_t>(*v);
  }
  TraceStorage* s = ctx_->storage.get();
  s->profile.perf_sample.Insert(ts, utid, cpu, s->Intern("user"), callsite, kNullStringId);
}

void JsonTraceParser::ParseEvent(int64_t ts, proto::Bytes bytes) {
  auto parsed = json::Parse(bytes.AsString());
  if (!parsed || !parsed->is_object()) {
    ctx_->storage->stats.Increment(Stat::kJsonParseErrors);
    return;
  }
  const json::Value& e = *parsed;
  std::string_view ph = ViewOr(e.Find("ph"), "");
  if (ph.empty()) {
    ctx_->storage->stats.Increment(Stat::kJsonParseErrors);
    return;
  }
  TraceStorage* s = ctx_->storage.get();
  ProcessTracker* pt = ctx_->process_tracker.get();
  std::string pid_label, tid_label;
  int64_t pid = ResolveId(e.Find("pid"), true, &pid_label);
  const json::Value* tid_v = e.Find("tid");
  int64_t tid = tid_v ? ResolveId(tid_v, false, &tid_label) : pid;
  uint32_t utid = pt->UpdateThread(tid, pid);
  uint32_t upid = *pt->GetUpidOfThread(utid);
  if (!pid_label.empty() && s->process.name[upid] == kNullStringId)
    s->process.name.Set(upid, s->Intern(pid_label));
  if (!tid_label.empty() && s->thread.name[utid] == kNullStringId)
    s->thread.name.Set(utid, s->Intern(tid_label));

  StringId name = s->Intern(ViewOr(e.Find("name"), ""));
  StringId cat = e.Find("cat") ? s->Intern(ViewOr(e.Find("cat"), "")) : kNullStringId;
  const json::Value* args = e.Find("args");
  SliceTracker* slices = ctx_->slice_tracker.get();
  TrackTracker* tracks = ctx_->track_tracker.get();

  switch (ph[0]) {
    case 'B': {
      uint32_t track = tracks->InternThreadTrack(utid);
      slices->Begin(ts, track, cat, name, AddArgs(args));
      break;
    }
    case 'E': {
      uint32_t track = tracks->InternThreadTrack(utid);
      slices->End(ts, track);
      break;
    }
    case 'X': {
      uint32_t track = tracks->InternThreadTrack(utid);
      int64_t dur = 0;
      if (const json::Value* d = e.Find("dur")) dur = json::MicrosToNanos(*d).value_or(0);
      slices->Scoped(ts, track, cat, name, dur, AddArgs(args));
      break;
    }
    case 'I':
    case 'i': {
      std::string_view scope = ViewOr(e.Find("s"), "t");
      uint32_t track;
      if (scope == "g")
        track = tracks->InternGlobalTrack(s->Intern("Global Legacy Events"));
      else if (scope == "p")
        track = tracks->InternProcessTrack(upid, kNullStringId);
      else
        track = tracks->InternThreadTrack(utid);
      slices->Scoped(ts, track, cat, name, 0, AddArgs(args));
      break;
    }
    case 'C': {
      if (!args || !args->is_object()) break;
      std::string prefix = StringOr(e.Find("name"), "");
      std::string id = IdString(e);
      if (!id.empty()) prefix += " id: " + id;
      for (const auto& [k, v] : args->members) {
        double value;
        if (v.is_number())
          value = v.number;
        else if (v.is_string())
          value = strtod(v.str.c_str(), nullptr);
        else
          continue;
        uint32_t track = tracks->InternProcessCounterTrack(upid, s->Intern(prefix + " " + k));
        tracks->PushCounter(ts, value, track);
      }
      break;
    }
    case 'M': {
      const json::Value* n = args ? args->Find("name") : nullptr;
      if (!n || !n->is_string()) break;
      std::string meta = StringOr(e.Find("name"), "");
      if (meta == "process_name") {
        s->process.name.Set(upid, s->Intern(n->str));
      } else if (meta == "thread_name") {
        pt->SetThreadName(utid, s->Intern(n->str));
      }
      break;
    }
    case 'b':
    case 'e':
    case 'n': {
      // Nestable async events: one process track per (category, id).
      std::string key =
          std::to_string(upid) + ":" + StringOr(e.Find("cat"), "") + ":" + IdString(e);
      auto it = async_tracks_.find(key);
      if (it == async_tracks_.end()) {
        uint32_t created =
            tracks->CreateTrack(false, name, kNullStringId, std::nullopt, upid, std::nullopt);
        it = async_tracks_.emplace(key, created).first;
      }
      uint32_t track = it->second;
      if (ph[0] == 'b')
        slices->Begin(ts, track, cat, name, AddArgs(args));
      else if (ph[0] == 'e')
        slices->End(ts, track);
      else
        slices->Scoped(ts, track, cat, name, 0, AddArgs(args));
      break;
    }
    case 's':
    case 't':
    case 'f':
      BindFlowsV1(ph[0], e, tracks->InternThreadTrack(utid), ts);
      break;
    case 'P':
      ParseSample(e, ts, utid);
      break;
    default:
      s->stats.Increment(Stat::kJsonUnsupportedEvents);
      break;
  }
}

}  // namespace fathom
