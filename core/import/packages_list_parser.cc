#include "core/import/packages_list_parser.h"

#include "perfetto/trace/android/android_misc.pb.h"

namespace fathom {

void PackagesListParser::Parse(proto::Bytes payload) {
  using perfetto::protos::PackagesList;
  using Info = perfetto::protos::PackagesList::PackageInfo;
  TraceStorage* s = ctx_->storage.get();
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id != PackagesList::kPackagesFieldNumber) continue;
    StringId name = kNullStringId;
    int64_t uid = 0, version = 0;
    bool debuggable = false, profileable = false;
    proto::Decoder p(f.bytes);
    for (proto::Field g = p.Next(); g.valid(); g = p.Next()) {
      switch (g.id) {
        case Info::kNameFieldNumber:
          name = s->Intern(g.as_string());
          break;
        case Info::kUidFieldNumber:
          uid = static_cast<int64_t>(g.int_value);
          break;
        case Info::kDebuggableFieldNumber:
          debuggable = g.as_bool();
          break;
        case Info::kProfileableFromShellFieldNumber:
          profileable = g.as_bool();
          break;
        case Info::kVersionCodeFieldNumber:
          version = static_cast<int64_t>(g.int_value);
          break;
      }
    }
    if (!seen_.insert(name).second) continue;
    s->package_list.Insert(name, uid, debuggable, profileable, version);
  }
}

}  // namespace fathom
