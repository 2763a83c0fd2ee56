#include "core/import/binder_tracker.h"

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

void BinderTracker::Transaction(int64_t ts, uint32_t tid, int32_t debug_id, bool is_reply,
                                uint32_t flags) {
  uint32_t track = ThreadTrack(tid);
  bool oneway = (flags & kOneWayFlag) != 0;
  std::optional<uint32_t> send;
  SliceTracker* slices = ctx_->slice_tracker.get();
  if (is_reply) {
    // Sending the reply ends what the callee has open, as upstream does: its
    // "binder reply" slice, or whatever it opened inside and left open.
    send = slices->End(ts, track);
  } else if (oneway) {
    send = slices->Scoped(ts, track, category_, transaction_async_, 0);
  } else {
    send = slices->Begin(ts, track, category_, transaction_);
  }
  outstanding_[debug_id] = Outstanding{track, is_reply, oneway, send};
  if (Frame* f = Top(tid)) {
    if (f->step == Step::kSentCommand || f->step == Step::kReplyCommand) {
      f->step = f->step == Step::kSentCommand ? Step::kSent : Step::kReplied;
      f->has_txn = true;
      f->oneway = oneway;
      f->reply = is_reply;
    } else if (f->step == Step::kReceived) {
      Pop(tid);  // no BR_TRANSACTION came: commands are not traced
    }
  }
}

void BinderTracker::TransactionReceived(int64_t ts, uint32_t tid, int32_t debug_id) {
  auto it = outstanding_.find(debug_id);
  if (it == outstanding_.end()) return;  // unknown kind: no slice to place
  Outstanding txn = it->second;
  outstanding_.erase(it);
  uint32_t track = ThreadTrack(tid);
  if (!txn.oneway) {
    if (!txn.is_reply) {
      Frame* f = Push(tid, Step::kReceived);
      f->has_txn = true;
    } else if (Frame* f = Top(tid); f && f->step == Step::kSentComplete) {
      f->step = Step::kReplyReceived;
    }
  }
  SliceTracker* slices = ctx_->slice_tracker.get();
  if (txn.is_reply) {
    // The reply reached the caller: its innermost open slice (the call) ends.
    // No flow: the call's flow already goes from caller to callee.
    slices->End(ts, track);
    return;
  }
  std::optional<uint32_t> recv = txn.oneway ? slices->Scoped(ts, track, category_, async_rcv_, 0)
                                            : slices->Begin(ts, track, category_, reply_);
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
