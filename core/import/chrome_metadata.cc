#include "core/import/chrome_metadata.h"

#include <string>

#include "core/import/args_tracker.h"
#include "core/import/metadata_writer.h"
#include "core/import/slice_tracker.h"
#include "core/import/trace_context.h"
#include "core/import/track_tracker.h"
#include "core/import/translation_table.h"

namespace fathom {
namespace {

using proto::Bytes;
using proto::Decoder;
using proto::Field;

// ChromeMetadataPacket fields.
enum MetadataField : uint32_t {
  kBackgroundTracingMetadata = 1,
  kChromeVersionCode = 2,
  kEnabledCategories = 3,
  kFieldTrialHashes = 4,  // FieldTrial { name = 1; group = 2; }
  kAppPackageName = 5,
  kAppVersion = 6,
  kChannel = 7,
  kOsName = 8,
};
constexpr uint32_t kScenarioNameHash = 3;  // BackgroundTracingMetadata
constexpr uint32_t kTriggerNameHash = 2;   // ChromeTrigger

std::string Base64(Bytes b) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((b.size + 2) / 3 * 4);
  for (size_t i = 0; i < b.size; i += 3) {
    uint32_t n = uint32_t{b.data[i]} << 16;
    if (i + 1 < b.size) n |= uint32_t{b.data[i + 1]} << 8;
    if (i + 2 < b.size) n |= b.data[i + 2];
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < b.size ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < b.size ? kAlphabet[n & 63] : '=';
  }
  return out;
}

// "{ name: N, group: G } " for one FieldTrial.
bool AppendFieldTrial(Bytes trial, std::string* out) {
  uint64_t name = 0, group = 0;
  Decoder d(trial);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == 1) name = f.int_value;
    if (f.id == 2) group = f.int_value;
  }
  *out += "{ name: " + std::to_string(name) + ", group: " + std::to_string(group) + " } ";
  return !d.error();
}

bool ParseBackgroundTracing(Bytes btm, MetadataWriter* md) {
  md->SetString("cr-background_tracing_metadata", Base64(btm));
  Decoder d(btm);
  for (Field f = d.Next(); f.valid(); f = d.Next())
    if (f.id == kScenarioNameHash) md->SetInt("cr-scenario_name_hash", f.as_uint32());
  return !d.error();
}

}  // namespace

bool ParseChromeMetadataPacket(TraceContext* ctx, uint32_t index, Bytes packet) {
  MetadataWriter md(ctx->storage.get());
  // One letter per packet, as upstream (past 'z' the letters repeat).
  const std::string prefix = std::string("cr-") + static_cast<char>('a' + index % 26) + "-";
  std::string trials;
  bool has_trials = false, ok = true;
  Decoder d(packet);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case kBackgroundTracingMetadata:
        ok &= ParseBackgroundTracing(f.bytes, &md);
        break;
      case kChromeVersionCode:
        md.SetInt(prefix + "playstore_version_code", f.as_int32());
        break;
      case kEnabledCategories:
        md.SetString(prefix + "enabled_categories", f.as_string());
        break;
      case kFieldTrialHashes:
        has_trials = true;
        ok &= AppendFieldTrial(f.bytes, &trials);
        break;
      case kAppPackageName:
        md.SetString(prefix + "package-name", f.as_string());
        break;
      case kAppVersion:
        md.SetString(prefix + "product-version", f.as_string());
        break;
      case kChannel:
        md.SetInt(prefix + "channel", f.as_int32());
        break;
      case kOsName:
        md.SetString(prefix + "os-name", f.as_string());
        break;
      default:
        break;
    }
  }
  if (has_trials) md.SetString(prefix + "field_trial_hashes", trials);
  return ok && !d.error();
}

bool ParseChromeTrigger(TraceContext* ctx, int64_t ts, Bytes trigger) {
  std::optional<uint32_t> hash;
  Decoder d(trigger);
  for (Field f = d.Next(); f.valid(); f = d.Next())
    if (f.id == kTriggerNameHash) hash = f.as_uint32();
  if (d.error()) return false;
  TraceStorage* storage = ctx->storage.get();
  auto args = ctx->args_tracker->NewSet();
  if (hash) {
    // Every trigger adds a row (upstream's key is typed "single" even so).
    MetadataWriter(storage).AppendIntTypedSingle("cr-triggered_rule_name_hash", *hash);
    args.AddUint("chrome_trigger.name_hash", *hash);
    if (auto name = ctx->translation_table->ChromeStudy(*hash))
      args.AddString("chrome_trigger.name", *name);
  }
  uint32_t track = ctx->track_tracker->InternGlobalTrack(storage->Intern("Trace Triggers"),
                                                         storage->Intern("triggers"));
  ctx->slice_tracker->Scoped(ts, track, kNullStringId, storage->Intern("chrome_trigger"), 0,
                             std::move(args));
  return true;
}

}  // namespace fathom
