// TrackEvent sequences: process/thread/async/counter track descriptors,
// nested sync slices, instants, async slices, counters (int, double,
// incremental), legacy events and debug annotations; names and categories
// inline or interned, with incremental-state resets mid-sequence.
#include <string>
#include <vector>

#include "tests/conformance/difftester/gen/generators.h"

namespace fathom::difftester {
namespace {

using perfetto::protos::TrackEvent;

const char* const kEventNames[] = {"Looper.dispatch", "DoFrame", "Compile",  "net::Fetch", "idle",
                                   "paint",           "",        "ünïcode ✓"};
const char* const kCategories[] = {"cat", "disabled-by-default-x", "gfx,input", "rail"};

class TrackEventSequence {
 public:
  TrackEventSequence(GenContext* ctx, uint32_t seq, const SimThread& thread)
      : ctx_(ctx), seq_(seq), pid_(thread.tgid), tid_(thread.tid), thread_name_(thread.comm) {
    const uint64_t base = (uint64_t{seq} << 8) + 1;
    process_uuid_ = base, thread_uuid_ = base + 1, async_uuid_ = base + 2, counter_uuid_ = base + 3;
    incremental_counter_ = ctx->Chance(30);
    use_defaults_ = ctx->Chance(40);
  }

  void Run() {
    int64_t t = ctx_->start_ts + ctx_->RandRange(0, 1'000'000);
    StartIncrementalState(t);
    EmitDescriptors(t);
    const int events = 20 + static_cast<int>(ctx_->Rand(60));
    for (int i = 0; i < events && t < ctx_->end_ts; ++i) {
      t += ctx_->RandRange(1'000, 400'000);
      if (ctx_->Chance(4)) StartIncrementalState(t);
      EmitOne(t);
    }
    // Close most of what is still open; what stays open has no end.
    while (!open_.empty() && ctx_->Chance(80)) EmitEnd(t += 1'000, false);
  }

 private:
  TracePacket* NewPacket(int64_t ts) {
    TracePacket* p = ctx_->Emit(ts, seq_);
    if (needs_state_) p->set_sequence_flags(2);  // SEQ_NEEDS_INCREMENTAL_STATE
    return p;
  }

  void StartIncrementalState(int64_t ts) {
    TracePacket* p = ctx_->Emit(ts, seq_);
    if (ctx_->Chance(80))
      p->set_sequence_flags(1);  // SEQ_INCREMENTAL_STATE_CLEARED
    else
      p->set_incremental_state_cleared(true);  // the legacy form
    ++generation_;
    interned_names_.assign(std::size(kEventNames), false);
    interned_cats_.assign(std::size(kCategories), false);
    if (use_defaults_)
      p->mutable_trace_packet_defaults()->mutable_track_event_defaults()->set_track_uuid(
          thread_uuid_);
    needs_state_ = true;
    last_counter_ = 0;
  }

  void EmitDescriptors(int64_t ts) {
    auto* proc = NewPacket(ts)->mutable_track_descriptor();
    proc->set_uuid(process_uuid_);
    proc->mutable_process()->set_pid(pid_);
    if (ctx_->Chance(60)) proc->mutable_process()->set_process_name("te-process");
    auto* thr = NewPacket(ts)->mutable_track_descriptor();
    thr->set_uuid(thread_uuid_);
    if (ctx_->Chance(70)) thr->set_parent_uuid(process_uuid_);
    thr->mutable_thread()->set_pid(pid_);
    thr->mutable_thread()->set_tid(tid_);
    if (ctx_->Chance(70)) thr->mutable_thread()->set_thread_name(thread_name_);
    auto* async = NewPacket(ts)->mutable_track_descriptor();
    async->set_uuid(async_uuid_);
    async->set_parent_uuid(process_uuid_);
    if (ctx_->Chance(80)) async->set_name("async track");
    auto* ctr = NewPacket(ts)->mutable_track_descriptor();
    ctr->set_uuid(counter_uuid_);
    if (ctx_->Chance(50)) ctr->set_parent_uuid(process_uuid_);
    ctr->set_name(ctx_->Chance(50) ? "te counter" : "mem.bytes");
    auto* cd = ctr->mutable_counter();
    if (ctx_->Chance(50)) cd->set_unit(perfetto::protos::CounterDescriptor::UNIT_SIZE_BYTES);
    if (ctx_->Chance(30)) cd->set_unit_multiplier(1024);
    if (incremental_counter_) cd->set_is_incremental(true);
  }

  // Name: inline, or interned (the interned entry rides on the first packet
  // that uses it in this generation of incremental state).
  void SetName(TracePacket* p, TrackEvent* e) {
    const size_t i = ctx_->Rand(std::size(kEventNames));
    if (ctx_->Chance(40)) {
      e->set_name(kEventNames[i]);
      return;
    }
    const uint64_t iid = 1 + i + generation_ * 16;
    if (!interned_names_[i]) {
      auto* n = p->mutable_interned_data()->add_event_names();
      n->set_iid(iid);
      n->set_name(kEventNames[i]);
      interned_names_[i] = true;
    }
    e->set_name_iid(iid);
  }

  void SetCategory(TracePacket* p, TrackEvent* e) {
    const size_t i = ctx_->Rand(std::size(kCategories));
    if (ctx_->Chance(30)) return;
    if (ctx_->Chance(50)) {
      e->add_categories(kCategories[i]);
      return;
    }
    const uint64_t iid = 1 + i + generation_ * 16;
    if (!interned_cats_[i]) {
      auto* c = p->mutable_interned_data()->add_event_categories();
      c->set_iid(iid);
      c->set_name(kCategories[i]);
      interned_cats_[i] = true;
    }
    e->add_category_iids(iid);
  }

  void AddAnnotations(TrackEvent* e) {
    const int n = static_cast<int>(ctx_->Rand(3));
    for (int i = 0; i < n; ++i) {
      auto* a = e->add_debug_annotations();
      a->set_name("arg" + std::to_string(i));
      switch (ctx_->Rand(5)) {
        case 0:
          a->set_int_value(static_cast<int64_t>(ctx_->Rand(1000)) - 500);
          break;
        case 1:
          a->set_string_value("value " + std::to_string(ctx_->Rand(9)));
          break;
        case 2:
          a->set_bool_value(ctx_->Chance(50));
          break;
        case 3:
          a->set_double_value(static_cast<double>(ctx_->Rand(1000)) / 8.0);
          break;
        default: {
          auto* d = a->add_dict_entries();
          d->set_name("inner");
          d->set_uint_value(ctx_->Rand(100));
        }
      }
    }
  }

  // Sync slices go on the thread track, named explicitly or through the
  // sequence's default track.
  void SetThreadTrack(TrackEvent* e) {
    if (!use_defaults_ || ctx_->Chance(30)) e->set_track_uuid(thread_uuid_);
  }

  void EmitBegin(int64_t ts, bool async) {
    TracePacket* p = NewPacket(ts);
    TrackEvent* e = p->mutable_track_event();
    e->set_type(TrackEvent::TYPE_SLICE_BEGIN);
    if (async)
      e->set_track_uuid(async_uuid_);
    else
      SetThreadTrack(e);
    SetName(p, e);
    SetCategory(p, e);
    AddAnnotations(e);
    open_.push_back(async);
  }

  void EmitEnd(int64_t ts, bool async) {
    TracePacket* p = NewPacket(ts);
    TrackEvent* e = p->mutable_track_event();
    e->set_type(TrackEvent::TYPE_SLICE_END);
    if (async)
      e->set_track_uuid(async_uuid_);
    else
      SetThreadTrack(e);
    for (size_t i = open_.size(); i-- > 0;)
      if (open_[i] == async) {
        open_.erase(open_.begin() + static_cast<long>(i));
        break;
      }
  }

  bool HasOpen(bool async) const {
    for (bool a : open_)
      if (a == async) return true;
    return false;
  }

  void EmitCounter(int64_t ts) {
    TrackEvent* e = NewPacket(ts)->mutable_track_event();
    e->set_type(TrackEvent::TYPE_COUNTER);
    e->set_track_uuid(counter_uuid_);
    if (incremental_counter_ || ctx_->Chance(60)) {
      const int64_t v = static_cast<int64_t>(ctx_->Rand(5000)) - 1000;
      e->set_counter_value(incremental_counter_ ? v - last_counter_ : v);
      last_counter_ = v;
    } else {
      e->set_double_counter_value(static_cast<double>(ctx_->Rand(100000)) / 7.0);
    }
  }

  // A legacy (Chrome JSON-style) event: a complete slice or an instant.
  void EmitLegacy(int64_t ts) {
    TracePacket* p = NewPacket(ts);
    TrackEvent* e = p->mutable_track_event();
    e->set_track_uuid(thread_uuid_);
    SetName(p, e);
    auto* le = e->mutable_legacy_event();
    if (ctx_->Chance(60)) {
      le->set_phase('X');
      le->set_duration_us(static_cast<int64_t>(ctx_->Rand(50)));
    } else {
      le->set_phase('I');
      le->set_instant_event_scope(TrackEvent::LegacyEvent::SCOPE_THREAD);
    }
  }

  void EmitOne(int64_t ts) {
    const int r = static_cast<int>(ctx_->Rand(100));
    if (r < 25) {
      EmitBegin(ts, false);
    } else if (r < 45) {
      if (HasOpen(false)) EmitEnd(ts, false);
    } else if (r < 55) {
      EmitBegin(ts, true);
    } else if (r < 62) {
      if (HasOpen(true)) EmitEnd(ts, true);
    } else if (r < 72) {
      TracePacket* p = NewPacket(ts);
      TrackEvent* e = p->mutable_track_event();
      e->set_type(TrackEvent::TYPE_INSTANT);
      SetThreadTrack(e);
      SetName(p, e);
      AddAnnotations(e);
    } else if (r < 90) {
      EmitCounter(ts);
    } else {
      EmitLegacy(ts);
    }
  }

  GenContext* ctx_;
  uint32_t seq_;
  int32_t pid_, tid_;
  std::string thread_name_;
  uint64_t process_uuid_, thread_uuid_, async_uuid_, counter_uuid_;
  bool incremental_counter_ = false, use_defaults_ = false, needs_state_ = false;
  uint64_t generation_ = 0;
  int64_t last_counter_ = 0;
  std::vector<bool> interned_names_, interned_cats_;
  std::vector<bool> open_;  // open slices, true = async
};

}  // namespace

void EmitTrackEvents(GenContext* ctx) {
  const int sequences = 1 + static_cast<int>(ctx->Rand(3));
  for (int k = 0; k < sequences; ++k) {
    const SimThread* t = ctx->RandomUserThread();
    if (!t) return;
    TrackEventSequence(ctx, GenContext::kSeqTrackEventBase + static_cast<uint32_t>(k), *t).Run();
  }
}

}  // namespace fathom::difftester
