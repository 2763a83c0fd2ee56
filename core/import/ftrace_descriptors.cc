#include "core/import/ftrace_descriptors.h"

#include <google/protobuf/descriptor.h>

#include "core/storage/trace_storage.h"
#include "perfetto/trace/ftrace/ftrace_event_bundle.pb.h"

namespace fathom {
namespace {

using google::protobuf::FieldDescriptor;

FtraceArgType ArgTypeOf(const FieldDescriptor* f) {
  switch (f->type()) {
    case FieldDescriptor::TYPE_INT32:
    case FieldDescriptor::TYPE_INT64:
    case FieldDescriptor::TYPE_SFIXED32:
    case FieldDescriptor::TYPE_SFIXED64:
    case FieldDescriptor::TYPE_BOOL:
    case FieldDescriptor::TYPE_ENUM:
      return FtraceArgType::kInt;
    case FieldDescriptor::TYPE_UINT32:
    case FieldDescriptor::TYPE_UINT64:
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_FIXED64:
      return FtraceArgType::kUint;
    case FieldDescriptor::TYPE_SINT32:
    case FieldDescriptor::TYPE_SINT64:
      return FtraceArgType::kSint;
    case FieldDescriptor::TYPE_STRING:
    case FieldDescriptor::TYPE_BYTES:
      return FtraceArgType::kString;
    case FieldDescriptor::TYPE_DOUBLE:
      return FtraceArgType::kDouble;
    case FieldDescriptor::TYPE_FLOAT:
      return FtraceArgType::kFloat;
    default:
      return FtraceArgType::kNone;
  }
}

}  // namespace

FtraceDescriptors::FtraceDescriptors(TraceStorage* storage) {
  const auto* event = perfetto::protos::FtraceEvent::descriptor();
  for (int i = 0; i < event->field_count(); ++i) {
    const FieldDescriptor* f = event->field(i);
    if (f->type() != FieldDescriptor::TYPE_MESSAGE) continue;  // timestamp, pid, common_flags
    uint32_t id = static_cast<uint32_t>(f->number());
    if (id >= events_.size()) events_.resize(id + 1);
    FtraceEventInfo& info = events_[id];
    info.name = storage->Intern(f->name());
    const auto* msg = f->message_type();
    for (int j = 0; j < msg->field_count(); ++j) {
      const FieldDescriptor* mf = msg->field(j);
      uint32_t fid = static_cast<uint32_t>(mf->number());
      if (fid > 4096) continue;  // keep the table dense
      if (fid >= info.fields.size()) info.fields.resize(fid + 1);
      info.fields[fid].name = storage->Intern(mf->name());
      info.fields[fid].type = ArgTypeOf(mf);
    }
  }
}

}  // namespace fathom
