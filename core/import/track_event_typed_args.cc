#include "core/import/track_event_typed_args.h"

#include <optional>
#include <string_view>

#include "core/import/native_symbol_args.h"
#include "core/import/profile_stack_tracker.h"
#include "core/import/sequence_state.h"
#include "core/import/translation_table.h"
#include "perfetto/trace/trace.pb.h"

namespace fathom {
namespace {

using perfetto::protos::ChromeHistogramSample;
using perfetto::protos::ChromeMojoEventInfo;
using perfetto::protos::ChromeUserEvent;
using perfetto::protos::HistogramName;
using perfetto::protos::InternedData;
using perfetto::protos::TrackEvent;
using proto::Bytes;
using proto::Decoder;
using proto::Field;

// ChromeTrackEvent.chrome_hashed_performance_mark, an extension of
// TrackEvent that Fathom's protos do not carry (upstream's field numbers).
constexpr uint32_t kHashedPerformanceMarkField = 1011;
enum PerformanceMarkField : uint32_t { kSiteHash = 1, kSite = 2, kMarkHash = 3, kMark = 4 };

std::optional<std::string_view> InternedHistogramName(const SequenceGeneration& gen, uint64_t iid) {
  const Bytes* b = gen.GetInterned(InternedData::kHistogramNamesFieldNumber, iid);
  if (!b) return std::nullopt;
  Decoder d(*b);
  for (Field f = d.Next(); f.valid(); f = d.Next())
    if (f.id == HistogramName::kNameFieldNumber) return f.as_string();
  return std::nullopt;
}

bool AddHistogramSample(Bytes msg, const SequenceGeneration& gen,
                        const TranslationTable& translation, ArgsTracker::Builder* args) {
  using H = ChromeHistogramSample;
  // The name comes from the message itself, else its interned name, else the
  // translation of its hash; upstream writes an interned name first.
  bool has_name = false;
  std::optional<uint64_t> hash, iid;
  Decoder d(msg);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == H::kNameFieldNumber) has_name = true;
    if (f.id == H::kNameHashFieldNumber) hash = f.int_value;
    if (f.id == H::kNameIidFieldNumber) iid = f.int_value;
  }
  if (d.error()) return false;
  if (!has_name && iid) {
    if (auto name = InternedHistogramName(gen, *iid)) {
      args->AddString("chrome_histogram_sample.name", *name);
      has_name = true;
    }
  }
  Decoder e(msg);
  for (Field f = e.Next(); f.valid(); f = e.Next()) {
    switch (f.id) {
      case H::kNameHashFieldNumber:
        args->AddUint("chrome_histogram_sample.name_hash", f.int_value);
        if (has_name) break;
        if (auto name = translation.ChromeHistogram(f.int_value))
          args->AddString("chrome_histogram_sample.name", *name);
        break;
      case H::kNameFieldNumber:
        args->AddString("chrome_histogram_sample.name", f.as_string());
        break;
      case H::kSampleFieldNumber:
        args->AddInt("chrome_histogram_sample.sample", f.as_int64());
        break;
      case H::kNameIidFieldNumber:
        args->AddUint("chrome_histogram_sample.name_iid", f.int_value);
        break;
      default:
        break;
    }
  }
  return true;
}

bool AddUserEvent(Bytes msg, const TranslationTable& translation, ArgsTracker::Builder* args) {
  using U = ChromeUserEvent;
  bool has_action = false;
  Decoder d(msg);
  for (Field f = d.Next(); f.valid(); f = d.Next())
    if (f.id == U::kActionFieldNumber) has_action = true;
  Decoder e(msg);
  for (Field f = e.Next(); f.valid(); f = e.Next()) {
    if (f.id == U::kActionFieldNumber) args->AddString("chrome_user_event.action", f.as_string());
    if (f.id != U::kActionHashFieldNumber) continue;
    args->AddUint("chrome_user_event.action_hash", f.int_value);
    if (has_action) continue;
    if (auto action = translation.ChromeUserEvent(f.int_value))
      args->AddString("chrome_user_event.action", *action);
  }
  return !d.error() && !e.error();
}

bool AddPerformanceMark(Bytes msg, const TranslationTable& translation,
                        ArgsTracker::Builder* args) {
  bool has_site = false, has_mark = false;
  Decoder d(msg);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    has_site |= f.id == kSite;
    has_mark |= f.id == kMark;
  }
  constexpr std::string_view kPrefix = "chrome_hashed_performance_mark.";
  auto key = [&](std::string_view field) { return std::string(kPrefix) + std::string(field); };
  Decoder e(msg);
  for (Field f = e.Next(); f.valid(); f = e.Next()) {
    switch (f.id) {
      case kSiteHash:
        args->AddUint(key("site_hash"), f.as_uint32());
        if (auto site = translation.PerformanceMarkSite(f.as_uint32()); site && !has_site)
          args->AddString(key("site"), *site);
        break;
      case kSite:
        args->AddString(key("site"), f.as_string());
        break;
      case kMarkHash:
        args->AddUint(key("mark_hash"), f.as_uint32());
        if (auto mark = translation.PerformanceMark(f.as_uint32()); mark && !has_mark)
          args->AddString(key("mark"), *mark);
        break;
      case kMark:
        args->AddString(key("mark"), f.as_string());
        break;
      default:
        break;
    }
  }
  return !d.error() && !e.error();
}

// The method's native symbol is resolved when the import ends (its
// ModuleSymbols usually follow the events): until then it is the mapping row
// and rel_pc of its interned source location.
void AddMojoMethod(uint64_t iid, const SequenceGeneration& gen, StackProfileTracker* stacks,
                   ArgsTracker::Builder* args) {
  const Bytes* loc = gen.GetInterned(InternedData::kUnsymbolizedSourceLocationsFieldNumber, iid);
  std::optional<uint32_t> mapping;
  uint64_t mapping_iid = 0, rel_pc = 0;
  if (loc) {
    using L = perfetto::protos::UnsymbolizedSourceLocation;
    Decoder d(*loc);
    for (Field f = d.Next(); f.valid(); f = d.Next()) {
      if (f.id == L::kMappingIdFieldNumber) mapping_iid = f.int_value;
      if (f.id == L::kRelPcFieldNumber) rel_pc = f.int_value;
    }
    mapping = stacks->ResolveMappingIid(InternedProfileIds(gen), &gen, mapping_iid);
  }
  if (!mapping) {
    args->AddUint("chrome_mojo_event_info.mojo_interface_method_iid", iid);
    return;
  }
  args->AddUint(kMojoMethodMappingKey, *mapping);
  args->AddUint(kMojoMethodRelPcKey, rel_pc);
}

bool AddMojoEventInfo(Bytes msg, const SequenceGeneration& gen, StackProfileTracker* stacks,
                      ArgsTracker::Builder* args) {
  using M = ChromeMojoEventInfo;
  constexpr std::string_view kPrefix = "chrome_mojo_event_info.";
  auto key = [&](std::string_view field) { return std::string(kPrefix) + std::string(field); };
  Decoder d(msg);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case M::kWatcherNotifyInterfaceTagFieldNumber:
        args->AddString(key("watcher_notify_interface_tag"), f.as_string());
        break;
      case M::kIpcHashFieldNumber:
        args->AddUint(key("ipc_hash"), f.as_uint32());
        break;
      case M::kMojoInterfaceTagFieldNumber:
        args->AddString(key("mojo_interface_tag"), f.as_string());
        break;
      case M::kMojoInterfaceMethodIidFieldNumber:
        AddMojoMethod(f.int_value, gen, stacks, args);
        break;
      case M::kIsReplyFieldNumber:
        args->AddBool(key("is_reply"), f.int_value != 0);
        break;
      case M::kPayloadSizeFieldNumber:
        args->AddUint(key("payload_size"), f.int_value);
        break;
      case M::kDataNumBytesFieldNumber:
        args->AddUint(key("data_num_bytes"), f.int_value);
        break;
      default:
        break;
    }
  }
  return !d.error();
}

}  // namespace

bool IsTypedArgsField(uint32_t field_id) {
  return field_id == TrackEvent::kChromeHistogramSampleFieldNumber ||
         field_id == TrackEvent::kChromeUserEventFieldNumber ||
         field_id == TrackEvent::kChromeMojoEventInfoFieldNumber ||
         field_id == kHashedPerformanceMarkField;
}

bool AddTypedArgs(uint32_t field_id, Bytes msg, const SequenceGeneration& gen,
                  const TranslationTable& translation, StackProfileTracker* stacks,
                  ArgsTracker::Builder* args) {
  switch (field_id) {
    case TrackEvent::kChromeMojoEventInfoFieldNumber:
      return AddMojoEventInfo(msg, gen, stacks, args);
    case TrackEvent::kChromeHistogramSampleFieldNumber:
      return AddHistogramSample(msg, gen, translation, args);
    case TrackEvent::kChromeUserEventFieldNumber:
      return AddUserEvent(msg, translation, args);
    case kHashedPerformanceMarkField:
      return AddPerformanceMark(msg, translation, args);
    default:
      return true;
  }
}

}  // namespace fathom
