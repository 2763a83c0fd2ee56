// TracePacket.translation_table: maps a trace carries for names its producer
// only recorded as hashes (Chrome histograms, user actions, performance marks,
// field-trial studies) or wrote obfuscated (slice names, process track names).
// The tables are read while tokenizing, so every event, earlier or later in
// the file, is translated with all of them (as upstream).
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "core/import/proto_decoder.h"
#include "core/storage/trace_storage.h"

namespace fathom {

class TranslationTable {
 public:
  explicit TranslationTable(TraceStorage* storage) : storage_(storage) {}

  // One TranslationTable message (false when it is not valid protobuf).
  bool Parse(proto::Bytes table);

  std::optional<StringId> ChromeHistogram(uint64_t hash) const { return Find(histograms_, hash); }
  std::optional<StringId> ChromeUserEvent(uint64_t hash) const { return Find(user_events_, hash); }
  std::optional<StringId> ChromeStudy(uint64_t hash) const { return Find(studies_, hash); }
  std::optional<StringId> PerformanceMarkSite(uint64_t hash) const { return Find(sites_, hash); }
  std::optional<StringId> PerformanceMark(uint64_t hash) const { return Find(marks_, hash); }
  // The name to show for `raw`; `raw` itself when the table has no entry.
  StringId SliceName(StringId raw) const { return Find(slice_names_, raw).value_or(raw); }
  StringId ProcessTrackName(StringId raw) const {
    return Find(process_track_names_, raw).value_or(raw);
  }

 private:
  using HashMap = std::unordered_map<uint64_t, StringId>;
  template <typename M, typename K>
  static std::optional<StringId> Find(const M& m, K key) {
    if (m.empty()) return std::nullopt;
    auto it = m.find(key);
    if (it == m.end()) return std::nullopt;
    return it->second;
  }
  // map<uint64|uint32, string> entries (field `field` of `table`).
  bool ParseHashMap(proto::Bytes table, uint32_t field, HashMap* out);
  bool ParseNameMap(proto::Bytes table, std::unordered_map<StringId, StringId>* out);

  TraceStorage* storage_;
  HashMap histograms_, user_events_, studies_, sites_, marks_;
  std::unordered_map<StringId, StringId> slice_names_, process_track_names_;
};

}  // namespace fathom
