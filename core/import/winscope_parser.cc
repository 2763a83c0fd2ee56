#include "core/import/winscope_parser.h"

#include "core/base/base64.h"
#include "core/import/android_input_events.h"
#include "core/import/args_tracker.h"
#include "core/import/proto_to_args.h"
#include "core/import/trace_context.h"
#include "perfetto/trace/android/inputmethodeditor.pb.h"
#include "perfetto/trace/android/winscope_extensions.pb.h"

namespace fathom {
namespace {

// The InputMethod dumps' extension fields. WinscopeExtensions does not
// declare them so that trace.proto does not depend on the InputMethod schema.
constexpr uint32_t kInputMethodClientsFieldNumber = 1;
constexpr uint32_t kInputMethodServiceFieldNumber = 2;
constexpr uint32_t kInputMethodManagerServiceFieldNumber = 3;

// One dump row: the whole dump (`where` included) flattened into its args.
void ParseDump(TraceContext* ctx, int64_t ts, const google::protobuf::Descriptor* desc,
               proto::Bytes raw, WinscopeDumpTable& table) {
  ArgsTracker::Builder args = ctx->args_tracker->NewSet();
  if (!ProtoToArgs(desc, raw, args)) ctx->storage->stats.Increment(Stat::kProtoDecodeErrors);
  table.Insert(ts, args.Commit(), ctx->storage->Intern(Base64Encode(raw.AsString())));
}

}  // namespace

void ParseWinscopeExtensions(TraceContext* ctx, int64_t ts, proto::Bytes extensions) {
  using perfetto::protos::WinscopeExtensions;
  WinscopeTables& tables = ctx->storage->winscope;
  proto::Decoder d(extensions);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.type != proto::WireType::kLengthDelimited) continue;
    switch (f.id) {
      case WinscopeExtensions::kAndroidInputEventFieldNumber:
        ParseAndroidInputEvent(ctx, ts, f.bytes);
        break;
      case kInputMethodClientsFieldNumber:
        ParseDump(ctx, ts, perfetto::protos::InputMethodClientsTraceProto::descriptor(), f.bytes,
                  tables.inputmethod_clients);
        break;
      case kInputMethodServiceFieldNumber:
        ParseDump(ctx, ts, perfetto::protos::InputMethodServiceTraceProto::descriptor(), f.bytes,
                  tables.inputmethod_service);
        break;
      case kInputMethodManagerServiceFieldNumber:
        ParseDump(ctx, ts, perfetto::protos::InputMethodManagerServiceTraceProto::descriptor(),
                  f.bytes, tables.inputmethod_manager_service);
        break;
      default:
        break;
    }
  }
  if (d.error()) ctx->storage->stats.Increment(Stat::kProtoDecodeErrors);
}

}  // namespace fathom
