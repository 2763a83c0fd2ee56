// Binder transactions from the binder ftrace events (protobuf or text), as
// upstream shows them: a synchronous call is a "binder transaction" slice on
// the caller and a "binder reply" slice on the callee, a oneway call an
// instant on each side ("binder transaction async" / "binder async rcv"),
// with a flow from the sending slice to the receiving one.
//
// A failed call never gets its reply: the binder_command (BC_*) and
// binder_return (BR_*) events tell where each thread is in its calls, so a
// failure return (BR_FAILED_REPLY, BR_DEAD_REPLY, ...) ends the caller's
// slice there instead of leaving it open.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/import/binder_args.h"
#include "core/import/trace_context.h"

namespace fathom {

class BinderTracker {
 public:
  explicit BinderTracker(TraceContext* ctx);

  // `t.calling_tid` is the sending thread.
  void Transaction(int64_t ts, const BinderTxnFields& t);
  void TransactionReceived(int64_t ts, uint32_t tid, int32_t debug_id);
  void Command(uint32_t tid, uint32_t cmd);             // binder_command
  void Return(int64_t ts, uint32_t tid, uint32_t cmd);  // binder_return

 private:
  // Where a thread is in one (possibly nested) call, from commands/returns.
  enum class Step : uint8_t {
    kSentCommand,     // caller: BC_TRANSACTION
    kSent,            // caller: binder_transaction
    kSentComplete,    // caller: BR_TRANSACTION_COMPLETE, awaits the reply
    kReplyReceived,   // caller: the reply's binder_transaction_received
    kReceived,        // callee: binder_transaction_received
    kReceivedReturn,  // callee: BR_TRANSACTION
    kReplyCommand,    // callee: BC_REPLY
    kReplied,         // callee: the reply's binder_transaction
  };
  struct Frame {
    Step step;
    bool has_txn = false;  // the transaction's kind is known
    bool oneway = false;
    bool reply = false;
  };
  struct Outstanding {
    uint32_t send_track;
    bool oneway;
    BinderTxnFields fields;
    std::optional<uint32_t> send_slice;              // flow source
    std::optional<ArgsTracker::Builder> async_args;  // a oneway call's, for both instants
  };

  uint32_t ThreadTrack(uint32_t tid);
  // "destination thread" (typed as upstream types it on that side) and
  // "destination name", the thread's name at this event (left out if none).
  ArgsTracker::Builder DestinationArgs(int64_t tid, bool as_uint);
  void Received(int64_t ts, uint32_t tid, const Outstanding& txn);
  Frame* Top(uint32_t tid);
  Frame* Push(uint32_t tid, Step step);
  void Pop(uint32_t tid);

  TraceContext* ctx_;
  StringId category_, transaction_, transaction_async_, reply_, async_rcv_;
  std::unordered_map<int32_t, Outstanding> outstanding_;     // by transaction debug id
  std::unordered_map<uint32_t, std::vector<Frame>> frames_;  // by tid
};

}  // namespace fathom
