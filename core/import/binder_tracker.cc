#include "core/import/binder_tracker.h"

#include "core/import/args_tracker.h"
#include "core/import/process_tracker.h"
#include "core/import/slice_tracker.h"
#include "core/import/track_tracker.h"

namespace fathom {
namespace {

constexpr uint32_t kOneWayFlag = 0x01;

// Commands are ioctl numbers whose size bits differ between 32- and 64-bit
// userspace: they are told apart by type and number (the low 16 bits).
constexpr uint32_t kBcTransaction = 0x6300, kBcReply = 0x6301;
constexpr uint32_t kBcTransactionSg = 0x6311, kBcReplySg = 0x6312;
constexpr uint32_t kBrTransaction = 0x7202, kBrReply = 0x7203, kBrDeadReply = 0x7205;
constexpr uint32_t kBrTransactionComplete = 0x7206, kBrFailedReply = 0x7211;
constexpr uint32_t kBrFrozenReply = 0x7212, kBrOnewaySpamSuspect = 0x7213;
constexpr uint32_t kBrTransactionPendingFrozen = 0x7214;

}  // namespace

BinderTracker::BinderTracker(TraceContext* ctx) : ctx_(ctx) {
  TraceStorage* s = ctx->storage.get();
  category_ = s->Intern("binder");
  transaction_ = s->Intern("binder transaction");
  transaction_async_ = s->Intern("binder transaction async");
  reply_ = s->Intern("binder reply");
  async_rcv_ = s->Intern("binder async rcv");
}

uint32_t BinderTracker::ThreadTrack(uint32_t tid) {
  return ctx_->track_tracker->InternThreadTrack(ctx_->process_tracker->GetOrCreateThread(tid));
}

BinderTracker::Frame* BinderTracker::Top(uint32_t tid) {
  auto it = frames_.find(tid);
  return it == frames_.end() || it->second.empty() ? nullptr : &it->second.back();
}

BinderTracker::Frame* BinderTracker::Push(uint32_t tid, Step step) {
  auto& stack = frames_[tid];
  stack.push_back(Frame{step});
  return &stack.back();
}

void BinderTracker::Pop(uint32_t tid) {
  auto it = frames_.find(tid);
  if (it == frames_.end()) return;
  if (!it->second.empty()) it->second.pop_back();
  if (it->second.empty()) frames_.erase(it);
}

ArgsTracker::Builder BinderTracker::DestinationArgs(int64_t tid, bool as_uint) {
  ArgsTracker::Builder b = ctx_->args_tracker->NewSet();
  if (as_uint) {
    b.AddUint("destination thread", static_cast<uint64_t>(tid));
  } else {
    b.AddInt("destination thread", tid);
  }
  // Upstream leaves the name out for a thread it has no name for.
  uint32_t utid = ctx_->process_tracker->GetOrCreateThread(tid);
  StringId name = ctx_->storage->thread.name[utid];
  if (name != kNullStringId) b.AddString("destination name", name);
  return b;
}

void BinderTracker::Transaction(int64_t ts, const BinderTxnFields& t) {
  uint32_t tid = t.calling_tid;
  uint32_t track = ThreadTrack(tid);
  bool oneway = (t.flags & kOneWayFlag) != 0;
  // A reply names its destination (the caller) first, as upstream orders it.
  ArgsTracker::Builder args =
      t.is_reply ? DestinationArgs(t.dest_thread, false) : ctx_->args_tracker->NewSet();
  AddBinderTxnArgs(&args, t);
  std::optional<uint32_t> send;
  std::optional<ArgsTracker::Builder> async_args;
  SliceTracker* slices = ctx_->slice_tracker.get();
  if (t.is_reply) {
    // Sending the reply ends what the callee has open, as upstream does: its
    // "binder reply" slice, or whatever it opened inside and left open. The
    // reply's own fields join that slice's args.
    send = slices->End(ts, track, kNullStringId, kNullStringId, std::move(args));
  } else if (oneway) {
    // Both instants of a oneway call carry the same args (so one shared set).
    // Like any slice's, they are written when the instant leaves its track's
    // stack (the thread's next slice, or the end of the import), as upstream.
    async_args = args;
    send = slices->Scoped(ts, track, category_, transaction_async_, 0, std::move(args));
  } else {
    send = slices->Begin(ts, track, category_, transaction_, std::move(args));
  }
  outstanding_[t.debug_id] = Outstanding{track, oneway, t, send, std::move(async_args)};
  if (Frame* f = Top(tid)) {
    if (f->step == Step::kSentCommand || f->step == Step::kReplyCommand) {
      f->step = f->step == Step::kSentCommand ? Step::kSent : Step::kReplied;
      f->has_txn = true;
      f->oneway = oneway;
      f->reply = t.is_reply;
    } else if (f->step == Step::kReceived) {
      Pop(tid);  // no BR_TRANSACTION came: commands are not traced
    }
  }
}

void BinderTracker::TransactionReceived(int64_t ts, uint32_t tid, int32_t debug_id) {
  auto it = outstanding_.find(debug_id);
  if (it == outstanding_.end()) return;  // unknown kind: no slice to place
  Outstanding txn = std::move(it->second);
  outstanding_.erase(it);
  if (!txn.oneway) {
    if (!txn.fields.is_reply) {
      Frame* f = Push(tid, Step::kReceived);
      f->has_txn = true;
    } else if (Frame* f = Top(tid); f && f->step == Step::kSentComplete) {
      f->step = Step::kReplyReceived;
    }
  }
  Received(ts, tid, txn);
}

void BinderTracker::Received(int64_t ts, uint32_t tid, const Outstanding& txn) {
  uint32_t track = ThreadTrack(tid);
  SliceTracker* slices = ctx_->slice_tracker.get();
  if (txn.fields.is_reply) {
    // The reply reached the caller: its innermost open slice (the call) ends.
    // No flow: the call's flow already goes from caller to callee.
    slices->End(ts, track);
    return;
  }
  std::optional<uint32_t> recv;
  if (txn.oneway) {
    recv = txn.async_args ? slices->Scoped(ts, track, category_, async_rcv_, 0, *txn.async_args)
                          : slices->Scoped(ts, track, category_, async_rcv_, 0);
  } else {
    // The callee's slice gets its args from the reply; the caller's slice
    // learns here which thread took the call.
    recv = slices->Begin(ts, track, category_, reply_);
    if (txn.send_slice)
      slices->AddArgs(txn.send_track, *txn.send_slice, DestinationArgs(tid, /*as_uint=*/true));
  }
  if (txn.send_slice && recv) ctx_->storage->flow.Insert(*txn.send_slice, *recv);
}

void BinderTracker::Command(uint32_t tid, uint32_t cmd) {
  switch (cmd & 0xFFFF) {
    case kBcTransaction:
    case kBcTransactionSg:
      Push(tid, Step::kSentCommand);
      break;
    case kBcReply:
    case kBcReplySg:
      if (Frame* f = Top(tid); f && f->step == Step::kReceivedReturn) f->step = Step::kReplyCommand;
      break;
    default:
      break;
  }
}

void BinderTracker::Return(int64_t ts, uint32_t tid, uint32_t cmd) {
  Frame* f = Top(tid);
  if (!f) return;
  switch (cmd & 0xFFFF) {
    case kBrDeadReply:
    case kBrFailedReply:
    case kBrFrozenReply:
    case kBrTransactionPendingFrozen:
      // The call failed: a caller still waiting for its reply stops waiting.
      if (f->step == Step::kSentCommand) {
        Pop(tid);  // failed before binder_transaction: no slice was opened
      } else if (f->step == Step::kSent || f->step == Step::kSentComplete ||
                 f->step == Step::kReplyCommand || f->step == Step::kReplied) {
        if (f->has_txn && !f->oneway && !f->reply) ctx_->slice_tracker->End(ts, ThreadTrack(tid));
        Pop(tid);
      }
      break;
    case kBrTransactionComplete:
    case kBrOnewaySpamSuspect:
      if (f->step == Step::kReplied || f->step == Step::kSentCommand) {
        Pop(tid);
      } else if (f->step == Step::kSent) {
        if (f->has_txn && !f->oneway)
          f->step = Step::kSentComplete;
        else
          Pop(tid);  // a oneway call is over once queued
      }
      break;
    case kBrReply:
      if (f->step == Step::kReplyReceived) Pop(tid);
      break;
    case kBrTransaction:
      if (f->step == Step::kReceived) f->step = Step::kReceivedReturn;
      break;
    default:
      break;
  }
}

}  // namespace fathom
