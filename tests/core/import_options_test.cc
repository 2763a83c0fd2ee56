// The import options upstream's shell has as flags (--crop-track-events,
// --analyze-trace-proto-content) and the Chrome name translation, checked on
// small traces. Every expected answer is what upstream's trace_processor_shell
// (v58.2) printed for the same trace.
#include <google/protobuf/text_format.h>
#include <google/protobuf/unknown_field_set.h>
#include <gtest/gtest.h>

#include <string>

#include "core/sql/result_printer.h"
#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/conformance/expected_output.h"

namespace fathom {
namespace {

namespace pb = perfetto::protos;
using google::protobuf::UnknownFieldSet;

pb::Trace FromText(const std::string& text) {
  pb::Trace t;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &t)) << text;
  return t;
}

// Loads `trace` with `options` and prints `sql`'s results as CSV.
std::string Answer(const pb::Trace& trace, const ImportOptions& options, const std::string& sql) {
  std::string bytes = trace.SerializeAsString();
  TraceProcessor tp;
  tp.set_import_options(options);
  Status st = tp.LoadBuffer(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (!st.ok()) return "<load failed: " + st.message() + ">";
  auto it = tp.Query(sql);
  std::string out;
  st = PrintResults(it.get(), ResultFormat::kCsv, &out);
  if (!st.ok()) return "<query failed: " + st.message() + ">";
  return conformance::NormaliseDiffOutput(out);
}

ImportOptions Crop() {
  ImportOptions o;
  o.crop_track_events = true;
  return o;
}

ImportOptions Analyze() {
  ImportOptions o;
  o.analyze_trace_proto_content = true;
  return o;
}

// A packet with a length-delimited field Fathom's protos do not describe.
void AddUnknownMessage(pb::TracePacket* p, int field, const UnknownFieldSet& msg) {
  std::string bytes;
  msg.SerializeToString(&bytes);
  p->mutable_unknown_fields()->AddLengthDelimited(field, bytes);
}
void AddUnknownMessage(pb::TracePacket* p, int field, const std::string& bytes) {
  p->mutable_unknown_fields()->AddLengthDelimited(field, bytes);
}

constexpr char kCropTrace[] = R"(
packet { timestamp: 5000 trusted_packet_sequence_id: 1 incremental_state_cleared: true
         track_event { track_uuid: 1 categories: "c" type: TYPE_INSTANT name: "before_roi_pkt" } }
packet { timestamp: 0 trusted_packet_sequence_id: 1 track_event_range_of_interest { start_us: 12 } }
packet { timestamp: 0 trusted_packet_sequence_id: 1 track_descriptor { uuid: 1 thread { pid: 1 tid: 2 } } }
packet { timestamp: 0 trusted_packet_sequence_id: 1 track_descriptor { uuid: 7 name: "ctr" counter { } } }
packet { timestamp: 11000 trusted_packet_sequence_id: 1
         track_event { track_uuid: 1 categories: "c" type: TYPE_INSTANT name: "i1" } }
packet { timestamp: 11999 trusted_packet_sequence_id: 1
         track_event { track_uuid: 7 type: TYPE_COUNTER counter_value: 5 } }
packet { timestamp: 12000 trusted_packet_sequence_id: 1
         track_event { track_uuid: 1 categories: "c" type: TYPE_INSTANT name: "i2" } }
packet { timestamp: 12000 trusted_packet_sequence_id: 1
         track_event { track_uuid: 7 type: TYPE_COUNTER counter_value: 6 } }
)";

TEST(CropTrackEvents, DropsEventsBeforeTheRangeOfInterest) {
  const pb::Trace trace = FromText(kCropTrace);
  const std::string sql = "select ts, name from slice order by ts; select ts, value from counter;";
  EXPECT_EQ(Answer(trace, Crop(), sql),
            "\"ts\",\"name\"\n12000,\"i2\"\n\n\"ts\",\"value\"\n12000,6.000000\n");
  // Off by default: everything is imported.
  EXPECT_EQ(Answer(trace, {}, sql),
            "\"ts\",\"name\"\n5000,\"before_roi_pkt\"\n11000,\"i1\"\n12000,\"i2\"\n\n"
            "\"ts\",\"value\"\n11999,5.000000\n12000,6.000000\n");
}

TEST(CropTrackEvents, TheLastRangeInTheFileWins) {
  // The second range packet is earlier in time but later in the file.
  const pb::Trace trace = FromText(R"(
packet { timestamp: 26000 trusted_packet_sequence_id: 1 incremental_state_cleared: true
         track_event_range_of_interest { start_us: 12 } }
packet { timestamp: 20000 trusted_packet_sequence_id: 3 incremental_state_cleared: true
         track_event_range_of_interest { start_us: 30 } }
packet { timestamp: 0 trusted_packet_sequence_id: 2 track_descriptor { uuid: 1 thread { pid: 1 tid: 2 } } }
packet { timestamp: 5000 trusted_packet_sequence_id: 2
         track_event { track_uuid: 1 categories: "c" type: TYPE_INSTANT name: "a" } }
packet { timestamp: 12000 trusted_packet_sequence_id: 2
         track_event { track_uuid: 1 categories: "c" type: TYPE_INSTANT name: "b" } }
packet { timestamp: 35000 trusted_packet_sequence_id: 2
         track_event { track_uuid: 1 categories: "c" type: TYPE_INSTANT name: "c" } }
)");
  EXPECT_EQ(Answer(trace, Crop(), "select ts, name from slice order by ts"),
            "\"ts\",\"name\"\n35000,\"c\"\n");
}

TEST(AnalyzeTraceProtoContent, OneArgSetPerCategoryAndName) {
  const pb::Trace trace = FromText(R"(
packet { timestamp: 0 trusted_packet_sequence_id: 1 incremental_state_cleared: true
         track_descriptor { uuid: 7 name: "ctr" counter { } } }
packet { timestamp: 1 trusted_packet_sequence_id: 1
         track_event { track_uuid: 7 type: TYPE_COUNTER counter_value: 5 } }
packet { timestamp: 2 trusted_packet_sequence_id: 1
         track_event { categories: "a" categories: "b" name: "n1" type: TYPE_INSTANT } }
packet { timestamp: 3 trusted_packet_sequence_id: 1
         interned_data { event_categories { iid: 1 name: "ic" } event_names { iid: 1 name: "in" } }
         track_event { category_iids: 1 name_iid: 1 type: TYPE_INSTANT } }
packet { timestamp: 4 trusted_packet_sequence_id: 1
         track_event { category_iids: 1 category_iids: 2 name_iid: 2 type: TYPE_INSTANT } }
packet { timestamp: 5 trusted_packet_sequence_id: 1 track_event { type: TYPE_INSTANT } }
packet { timestamp: 6 trusted_packet_sequence_id: 1 track_event { name: "n1" categories: "a,b" type: TYPE_INSTANT } }
packet { timestamp: 9 trusted_packet_sequence_id: 1
         track_event { name: "bad" type: TYPE_COUNTER counter_value: 5 } }
)");
  const std::string sql =
      "select c.display_value as cat, n.display_value as name from args c join args n "
      "using(arg_set_id) where c.key = 'event.category' and n.key = 'event.name' "
      "order by cat, name";
  // The rejected counter event ("bad") has no set; duplicates share one.
  EXPECT_EQ(Answer(trace, Analyze(), sql),
            "\"cat\",\"name\"\n\"[NULL]\",\"[NULL]\"\n\"a,b\",\"n1\"\n\"ic\",\"[NULL]\"\n"
            "\"ic\",\"in\"\n");
  EXPECT_EQ(Answer(trace, {}, "select count(*) as n from args where key like 'event.%'"),
            "\"n\"\n0\n");
}

// TranslationTable { slice_name = 4 | process_track_name = 5 { raw_to_deobfuscated_name = 1 } }
std::string NameTable(int table, const std::string& raw, const std::string& shown) {
  UnknownFieldSet entry;
  entry.AddLengthDelimited(1, raw);
  entry.AddLengthDelimited(2, shown);
  std::string e;
  entry.SerializeToString(&e);
  UnknownFieldSet map;
  map.AddLengthDelimited(1, e);
  std::string m;
  map.SerializeToString(&m);
  UnknownFieldSet t;
  t.AddLengthDelimited(table, m);
  std::string bytes;
  t.SerializeToString(&bytes);
  return bytes;
}

TEST(TranslationTable, RenamesSlicesAndProcessTracksWhereverItStands) {
  pb::Trace trace = FromText(R"(
packet { trusted_packet_sequence_id: 1 timestamp: 1000
         track_event { categories: "cat" name: "raw_name1" type: TYPE_INSTANT } }
packet { trusted_packet_sequence_id: 3 timestamp: 3000
         track_descriptor { uuid: 9 process { pid: 5 } } }
packet { trusted_packet_sequence_id: 3 timestamp: 3000
         track_descriptor { uuid: 10 parent_uuid: 9 name: "raw_ptrack" } }
packet { trusted_packet_sequence_id: 3 timestamp: 3000
         track_event { track_uuid: 10 categories: "cat" name: "x" type: TYPE_INSTANT } }
)");
  // The tables come last in the file and still apply to everything.
  AddUnknownMessage(trace.add_packet(), 82, NameTable(4, "raw_name1", "mapped_name1"));
  AddUnknownMessage(trace.add_packet(), 82, NameTable(5, "raw_ptrack", "mapped_ptrack"));
  EXPECT_EQ(
      Answer(trace, {},
             "select name from slice order by ts; select name from process_track order by name"),
      "\"name\"\n\"mapped_name1\"\n\"x\"\n\n\"name\"\n\"[NULL]\"\n\"mapped_ptrack\"\n");
}

TEST(ChromeProcessDescriptor, ProcessTypeNamesAndCrashId) {
  const pb::Trace trace = FromText(R"(
packet { trusted_packet_sequence_id: 1 timestamp: 1 track_descriptor { uuid: 1
         process { pid: 10 process_name: "a" }
         chrome_process { process_type: 1 crash_trace_id: 77 legacy_sort_index: 3 } } }
packet { trusted_packet_sequence_id: 1 timestamp: 1 track_descriptor { uuid: 4
         process { pid: 13 } chrome_process { process_type: 9 } } }
packet { trusted_packet_sequence_id: 1 timestamp: 1 track_descriptor { uuid: 5
         process { pid: 14 } chrome_process { process_type: 1000 } } }
)");
  EXPECT_EQ(Answer(trace, {},
                   "select p.pid, a.key, a.display_value from process p join args a "
                   "using(arg_set_id) order by p.pid, a.key"),
            "\"pid\",\"key\",\"display_value\"\n10,\"chrome.crash_trace_id\",\"77\"\n"
            "10,\"chrome.process_type\",\"Browser\"\n"
            "13,\"chrome.process_type\",\"Service: network.mojom.NetworkService\"\n"
            "14,\"chrome.process_type\",\"[NULL]\"\n");
}

TEST(ChromeMetadata, OnePrefixPerPacketInFileOrderAndTriggerRows) {
  pb::Trace trace;
  // ChromeMetadataPacket.chrome_version_code = 2, in file order 1, 2, 3 (the
  // second is earlier in time and on another sequence).
  const int codes[][3] = {{10, 1, 1}, {5, 2, 2}, {20, 1, 3}};
  for (const auto& [ts, seq, code] : codes) {
    pb::TracePacket* p = trace.add_packet();
    p->set_timestamp(ts);
    p->set_trusted_packet_sequence_id(seq);
    UnknownFieldSet md;
    md.AddVarint(2, code);
    AddUnknownMessage(p, 51, md);
  }
  for (int hash : {5, 6}) {  // ChromeTrigger.trigger_name_hash = 2 (fixed32)
    pb::TracePacket* p = trace.add_packet();
    p->set_timestamp(20 + hash);
    p->set_trusted_packet_sequence_id(3);
    UnknownFieldSet trigger;
    trigger.AddFixed32(2, hash);
    AddUnknownMessage(p, 109, trigger);
  }
  EXPECT_EQ(Answer(trace, {},
                   "select name, key_type, int_value from metadata where name like 'cr-%' "
                   "order by name, int_value"),
            "\"name\",\"key_type\",\"int_value\"\n"
            "\"cr-a-playstore_version_code\",\"single\",1\n"
            "\"cr-b-playstore_version_code\",\"single\",2\n"
            "\"cr-c-playstore_version_code\",\"single\",3\n"
            "\"cr-triggered_rule_name_hash\",\"single\",5\n"
            "\"cr-triggered_rule_name_hash\",\"single\",6\n");
}

}  // namespace
}  // namespace fathom
