// A problem an importer counts only as a stat is also reported in the load's
// warnings with the byte offset of the packet that caused it (issue 31: "the
// mutations reported only as a counter, with no offset"). Offsets are checked
// against the packet's position in the serialized file, computed here from
// the encoding, not taken from the loader.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"

namespace fathom {
namespace {

using perfetto::protos::Trace;
using perfetto::protos::TracePacket;
using perfetto::protos::TrackEvent;

struct Span {
  uint64_t begin = 0, end = 0;  // [begin, end) of a packet's encoding in the file
};

// Serializes `trace` and returns where packet `index` sits: the bytes of the
// packets before it, then its own tag, length and body.
Span PacketSpan(const Trace& trace, int index) {
  Trace prefix;
  for (int i = 0; i < index; ++i) *prefix.add_packet() = trace.packet(i);
  Trace one;
  *one.add_packet() = trace.packet(index);
  const uint64_t begin = prefix.SerializeAsString().size();
  return {begin, begin + one.SerializeAsString().size()};
}

// The offsets of the warnings that name `stat`.
std::vector<uint64_t> OffsetsNaming(const LoadReport& report, const std::string& stat) {
  std::vector<uint64_t> out;
  const std::regex re("byte offset ([0-9]+): .*" + stat);
  for (const std::string& w : report.warnings) {
    std::smatch m;
    if (std::regex_search(w, m, re)) out.push_back(std::stoull(m[1]));
  }
  return out;
}

TracePacket* Packet(Trace* t, uint64_t ts) {
  TracePacket* p = t->add_packet();
  p->set_timestamp(ts);
  p->set_trusted_packet_sequence_id(1);
  return p;
}

TEST(StatProblemOffsets, ParsedEventProblemNamesItsPacket) {
  Trace t;
  // Two sched_switch events on CPU 0 that disagree about who was running:
  // the second is counted as mismatched_sched_switch_tids while the sorted
  // events are parsed, long after tokenizing.
  for (int i = 0; i < 2; ++i) {
    TracePacket* p = t.add_packet();
    p->set_trusted_packet_sequence_id(1);
    auto* bundle = p->mutable_ftrace_events();
    bundle->set_cpu(0);
    auto* e = bundle->add_event();
    e->set_timestamp(1000 + i * 1000);
    e->set_pid(i == 0 ? 0 : 11);
    auto* sw = e->mutable_sched_switch();
    sw->set_prev_pid(i == 0 ? 0 : 11);
    sw->set_prev_comm(i == 0 ? "swapper" : "other");
    sw->set_prev_state(0);
    sw->set_next_pid(i == 0 ? 10 : 12);
    sw->set_next_comm(i == 0 ? "first" : "next");
    sw->set_next_prio(120);
  }
  const std::string bytes = t.SerializeAsString();

  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadBuffer(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                            "mismatch.pftrace")
                  .ok());
  ASSERT_EQ(tp.storage().stats.Get(Stat::kMismatchedSchedSwitchTids), 1);
  const std::vector<uint64_t> offsets = OffsetsNaming(tp.report(), "mismatched_sched_switch_tids");
  ASSERT_EQ(offsets.size(), 1u) << "warnings do not name the stat with an offset";
  const Span span = PacketSpan(t, 1);
  EXPECT_GE(offsets[0], span.begin);
  EXPECT_LT(offsets[0], span.end);
  for (const std::string& w : tp.report().warnings)
    if (w.find("mismatched_sched_switch_tids") != std::string::npos)
      EXPECT_EQ(w.rfind("mismatch.pftrace: ", 0), 0u) << w;
}

TEST(StatProblemOffsets, TokenizerProblemNamesItsPacket) {
  Trace t;
  TracePacket* good = Packet(&t, 10);
  good->set_sequence_flags(TracePacket::SEQ_INCREMENTAL_STATE_CLEARED);
  good->mutable_track_descriptor()->set_uuid(7);
  // A thread track without its process: counted as
  // track_event_tokenizer_errors while tokenizing.
  auto* orphan = Packet(&t, 20)->mutable_track_descriptor();
  orphan->set_uuid(8);
  orphan->mutable_thread()->set_tid(5);
  Packet(&t, 30)->mutable_track_descriptor()->set_uuid(9);
  const std::string bytes = t.SerializeAsString();

  TraceProcessor tp;
  ASSERT_TRUE(
      tp.LoadBuffer(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "orphan_thread.pftrace")
          .ok());
  ASSERT_EQ(tp.storage().stats.Get(Stat::kTrackEventTokenizerErrors), 1);
  const std::vector<uint64_t> offsets = OffsetsNaming(tp.report(), "track_event_tokenizer_errors");
  ASSERT_EQ(offsets.size(), 1u);
  const Span span = PacketSpan(t, 1);
  EXPECT_GE(offsets[0], span.begin);
  EXPECT_LT(offsets[0], span.end);
}

TEST(StatProblemOffsets, InformationalStatsAreNotWarnings) {
  Trace t;
  TracePacket* d = Packet(&t, 10);
  d->set_sequence_flags(TracePacket::SEQ_INCREMENTAL_STATE_CLEARED);
  d->mutable_track_descriptor()->set_uuid(7);
  const std::string bytes = t.SerializeAsString();
  TraceProcessor tp;
  ASSERT_TRUE(
      tp.LoadBuffer(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "clean.pftrace")
          .ok());
  EXPECT_TRUE(tp.report().warnings.empty()) << tp.report().warnings.front();
}

}  // namespace
}  // namespace fathom
