#include "core/import/smaps_parser.h"

#include <string_view>

#include "core/import/process_tracker.h"
#include "core/import/trace_context.h"
#include "perfetto/trace/profiling/profile_packet.pb.h"

namespace fathom {
namespace {

using perfetto::protos::SmapsEntry;
using perfetto::protos::SmapsPacket;

// The kernel marks mappings of unlinked files with this suffix; the trimmed
// path drops it so a deleted library groups with its live copies.
constexpr std::string_view kDeletedSuffix = " (deleted)";

void AddEntry(TraceContext* ctx, int64_t ts, uint32_t upid, proto::Bytes entry) {
  TraceStorage* s = ctx->storage.get();
  std::optional<std::string_view> path, file_name, debugid, debug_path;
  int64_t v[SmapsEntry::kProportionalResidentKbFieldNumber + 1] = {};
  proto::Decoder d(entry);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case SmapsEntry::kPathFieldNumber:
        path = f.as_string();
        break;
      case SmapsEntry::kFileNameFieldNumber:
        file_name = f.as_string();
        break;
      case SmapsEntry::kModuleDebugidFieldNumber:
        debugid = f.as_string();
        break;
      case SmapsEntry::kModuleDebugPathFieldNumber:
        debug_path = f.as_string();
        break;
      default:
        if (f.id < std::size(v) && f.type == proto::WireType::kVarint) v[f.id] = f.as_int64();
    }
  }
  auto intern = [s](const std::optional<std::string_view>& str) {
    return str ? s->Intern(*str) : kNullStringId;
  };
  bool deleted = path && path->size() >= kDeletedSuffix.size() &&
                 path->substr(path->size() - kDeletedSuffix.size()) == kDeletedSuffix;
  std::optional<std::string_view> trimmed = path;
  if (deleted) trimmed = path->substr(0, path->size() - kDeletedSuffix.size());

  using SE = SmapsEntry;
  ProfilerSmapsTable::Row row;
  row.upid = upid;
  row.ts = ts;
  row.path = intern(path);
  row.path_trimmed = intern(trimmed);
  row.is_deleted = deleted ? 1 : 0;
  row.size_kb = v[SE::kSizeKbFieldNumber];
  row.private_dirty_kb = v[SE::kPrivateDirtyKbFieldNumber];
  row.swap_kb = v[SE::kSwapKbFieldNumber];
  row.file_name = intern(file_name);
  row.start_address = v[SE::kStartAddressFieldNumber];
  row.module_timestamp = v[SE::kModuleTimestampFieldNumber];
  row.module_debugid = intern(debugid);
  row.module_debug_path = intern(debug_path);
  row.protection_flags = v[SE::kProtectionFlagsFieldNumber];
  row.private_clean_resident_kb = v[SE::kPrivateCleanResidentKbFieldNumber];
  row.shared_dirty_resident_kb = v[SE::kSharedDirtyResidentKbFieldNumber];
  row.shared_clean_resident_kb = v[SE::kSharedCleanResidentKbFieldNumber];
  row.locked_kb = v[SE::kLockedKbFieldNumber];
  row.proportional_resident_kb = v[SE::kProportionalResidentKbFieldNumber];
  s->profile.profiler_smaps.Insert(row);
}

}  // namespace

void ParseSmapsPacket(TraceContext* ctx, int64_t ts, proto::Bytes payload) {
  int64_t pid = 0;
  std::vector<proto::Bytes> entries;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == SmapsPacket::kPidFieldNumber) pid = f.as_int64();
    if (f.id == SmapsPacket::kEntriesFieldNumber) entries.push_back(f.bytes);
  }
  uint32_t upid = ctx->process_tracker->GetOrCreateProcess(pid);
  for (proto::Bytes e : entries) AddEntry(ctx, ts, upid, e);
}

}  // namespace fathom
