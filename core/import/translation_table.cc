#include "core/import/translation_table.h"

namespace fathom {
namespace {

using proto::Bytes;
using proto::Decoder;
using proto::Field;

// Field numbers of upstream's TranslationTable (translation_table.proto);
// Fathom's protos/ do not carry the message, only TracePacket's field 82
// is read, by number.
enum TableField : uint32_t {
  kChromeHistogram = 1,   // ChromeHistorgramTranslationTable.hash_to_name = 1
  kChromeUserEvent = 2,   // ChromeUserEventTranslationTable.action_hash_to_name = 1
  kPerformanceMark = 3,   // site_hash_to_name = 1, mark_hash_to_name = 2
  kSliceName = 4,         // SliceNameTranslationTable.raw_to_deobfuscated_name = 1
  kProcessTrackName = 5,  // ProcessTrackNameTranslationTable.raw_to_deobfuscated_name = 1
  kChromeStudy = 6,       // ChromeStudyTranslationTable.hash_to_name = 1
};
constexpr uint32_t kMapKey = 1, kMapValue = 2;

}  // namespace

bool TranslationTable::Parse(Bytes table) {
  Decoder d(table);
  bool ok = true;
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case kChromeHistogram:
        ok &= ParseHashMap(f.bytes, 1, &histograms_);
        break;
      case kChromeUserEvent:
        ok &= ParseHashMap(f.bytes, 1, &user_events_);
        break;
      case kPerformanceMark:
        ok &= ParseHashMap(f.bytes, 1, &sites_);
        ok &= ParseHashMap(f.bytes, 2, &marks_);
        break;
      case kSliceName:
        ok &= ParseNameMap(f.bytes, &slice_names_);
        break;
      case kProcessTrackName:
        ok &= ParseNameMap(f.bytes, &process_track_names_);
        break;
      case kChromeStudy:
        ok &= ParseHashMap(f.bytes, 1, &studies_);
        break;
      default:
        break;
    }
  }
  return ok && !d.error();
}

bool TranslationTable::ParseHashMap(Bytes table, uint32_t field, HashMap* out) {
  Decoder d(table);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id != field) continue;
    uint64_t key = 0;
    std::string_view value;
    Decoder e(f.bytes);
    for (Field g = e.Next(); g.valid(); g = e.Next()) {
      if (g.id == kMapKey) key = g.int_value;
      if (g.id == kMapValue) value = g.as_string();
    }
    if (e.error()) return false;
    (*out)[key] = storage_->Intern(value);
  }
  return !d.error();
}

bool TranslationTable::ParseNameMap(Bytes table, std::unordered_map<StringId, StringId>* out) {
  Decoder d(table);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id != 1) continue;  // raw_to_deobfuscated_name
    std::string_view key, value;
    Decoder e(f.bytes);
    for (Field g = e.Next(); g.valid(); g = e.Next()) {
      if (g.id == kMapKey) key = g.as_string();
      if (g.id == kMapValue) value = g.as_string();
    }
    if (e.error()) return false;
    (*out)[storage_->Intern(key)] = storage_->Intern(value);
  }
  return !d.error();
}

}  // namespace fathom
