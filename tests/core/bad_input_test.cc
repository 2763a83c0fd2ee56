// Robustness: damaged, truncated, random and wrapped inputs must never crash
// or hang the loader. Fatal problems come back as a Status naming the input
// and the byte offset; partial damage loads everything before it and is
// reported as a warning plus a stat. Expectations come from an independent
// walk of the Trace framing (trace_test_util.h), never from the loader.
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

using namespace fathom::testing;

// What one load produced, in the terms the assertions need.
struct Outcome {
  Status status;
  LoadReport report;
  uint64_t sched = 0, counter = 0, slice = 0, ftrace = 0, threads = 0, processes = 0;
  int64_t truncated_bytes = 0, decode_errors = 0, compressed_errors = 0;

  uint64_t event_rows() const { return sched + counter + slice + ftrace; }
  bool AnyWarningContains(const std::string& s) const {
    for (const auto& w : report.warnings)
      if (w.find(s) != std::string::npos) return true;
    return false;
  }
  std::string Warnings() const {
    std::string all;
    for (const auto& w : report.warnings) all += w + "\n";
    return all;
  }
};

Outcome Collect(TraceProcessor& tp, Status st) {
  Outcome o;
  o.status = std::move(st);
  o.report = tp.report();
  const TraceStorage& s = tp.storage();
  o.sched = s.sched.row_count();
  o.counter = s.counter.row_count();
  o.slice = s.slice.row_count();
  o.ftrace = s.ftrace_event.row_count();
  o.threads = s.thread.row_count();
  o.processes = s.process.row_count();
  o.truncated_bytes = s.stats.Get(Stat::kTraceTruncated);
  o.decode_errors = s.stats.Get(Stat::kProtoDecodeErrors);
  o.compressed_errors = s.stats.Get(Stat::kCompressedPacketErrors);
  return o;
}

// Loads and also runs a query, so the SQL layer sees whatever got in.
Outcome LoadBytes(const uint8_t* data, size_t size, const std::string& name) {
  TraceProcessor tp;
  Status st = tp.LoadBuffer(data, size, name);
  auto it = tp.Query("select count(*) from sched");
  while (it->NextResultSet())
    while (it->NextRow()) {
    }
  return Collect(tp, std::move(st));
}
Outcome LoadBytes(const std::string& bytes, const std::string& name) {
  return LoadBytes(AsBytes(bytes), bytes.size(), name);
}
Outcome LoadPath(const std::filesystem::path& p) {
  TraceProcessor tp;
  Status st = tp.LoadFile(p.string());
  return Collect(tp, std::move(st));
}

// ---- a tiny raw protobuf writer for hand-made damage -----------------------

std::string Varint(uint64_t v) {
  std::string s;
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    s.push_back(static_cast<char>(v ? b | 0x80 : b));
  } while (v);
  return s;
}
std::string Tag(uint32_t field, uint32_t wire) { return Varint((uint64_t{field} << 3) | wire); }
std::string LenField(uint32_t field, const std::string& body) {
  return Tag(field, 2) + Varint(body.size()) + body;
}
std::string VarintField(uint32_t field, uint64_t v) { return Tag(field, 0) + Varint(v); }

// One well-formed packet: a timestamped sched_switch in an ftrace bundle.
std::string GoodPacket(uint64_t ts) {
  perfetto::protos::TracePacket p;
  p.set_timestamp(ts);
  auto* bundle = p.mutable_ftrace_events();
  bundle->set_cpu(0);
  auto* ev = bundle->add_event();
  ev->set_timestamp(ts);
  ev->set_pid(1);
  auto* sw = ev->mutable_sched_switch();
  sw->set_prev_pid(1);
  sw->set_next_pid(2);
  sw->set_prev_comm("a");
  sw->set_next_comm("b");
  return LenField(perfetto::protos::Trace::kPacketFieldNumber, p.SerializeAsString());
}

class RealTraces : public ::testing::Test {
 protected:
  static const std::string& Sched() {
    static const std::string b = ReadFileBytes(TestData("android_sched_binder_10s.perfetto-trace"));
    return b;
  }
  static const std::string& Nested() {
    static const std::string b =
        ReadFileBytes(TestData("track_event_nested_tracks.perfetto-trace"));
    return b;
  }
};

// ---- truncation at every boundary -------------------------------------------

// Cuts `bytes` at every 1 KiB boundary up to 64 KiB, then every 16 KiB (plus
// the exact end), and checks each prefix against the independent framing walk.
// Every 1 KiB over the whole file when FATHOM_EXHAUSTIVE=1 (slow in ctest).
void CheckTruncations(const std::string& bytes, const std::string& label) {
  ASSERT_FALSE(bytes.empty()) << label << " missing from " << SharedDir();
  const bool exhaustive = getenv("FATHOM_EXHAUSTIVE") != nullptr;
  std::vector<size_t> cuts;
  for (size_t c = 1024; c < bytes.size(); c += (exhaustive || c < (64u << 10)) ? 1024 : 16384)
    cuts.push_back(c);
  cuts.push_back(bytes.size());

  Outcome full = LoadBytes(bytes, label);
  ASSERT_TRUE(full.status.ok()) << full.status.message();
  Outcome prev;
  for (size_t cut : cuts) {
    const std::string name = label + "@" + std::to_string(cut);
    FramingWalk walk = WalkTraceFraming(AsBytes(bytes), cut);
    Outcome o = LoadBytes(AsBytes(bytes), cut, name);
    SCOPED_TRACE(name);
    if (walk.packets == 0) {
      // Nothing whole to load: a fatal error naming the input and offset.
      EXPECT_FALSE(o.status.ok());
      EXPECT_NE(o.status.message().find(name), std::string::npos) << o.status.message();
      EXPECT_NE(o.status.message().find("byte offset"), std::string::npos) << o.status.message();
      continue;
    }
    ASSERT_TRUE(o.status.ok()) << o.status.message();
    EXPECT_EQ(o.report.packets, walk.packets);
    const uint64_t partial = cut - walk.whole_bytes;
    EXPECT_EQ(o.truncated_bytes, static_cast<int64_t>(partial));
    if (partial > 0) {
      EXPECT_TRUE(o.AnyWarningContains(name + ": byte offset " + std::to_string(walk.whole_bytes)))
          << o.Warnings();
    } else {
      EXPECT_TRUE(o.report.warnings.empty()) << o.Warnings();
    }
    // Everything before the damage is in; nothing is invented after it.
    EXPECT_LE(o.sched, full.sched);
    EXPECT_LE(o.counter, full.counter);
    EXPECT_LE(o.ftrace, full.ftrace);
    EXPECT_LE(o.slice, full.slice);
    EXPECT_LE(o.event_rows(), full.event_rows());
    // Rows only grow with the cut point. sched/ftrace rows are one per event;
    // slices/counters may be derived at the end of the import, so allow slack.
    EXPECT_GE(o.sched, prev.sched);
    EXPECT_GE(o.ftrace, prev.ftrace);
    EXPECT_GE(o.event_rows() + 16, prev.event_rows());
    prev = o;
  }
  // The final cut is the whole file: identical to the reference load.
  EXPECT_EQ(prev.event_rows(), full.event_rows());
  EXPECT_EQ(prev.truncated_bytes, 0);
}

TEST_F(RealTraces, TruncatedSchedTraceLoadsPrefix) {
  CheckTruncations(Sched(), "android_sched_binder_10s");
}

TEST_F(RealTraces, TruncatedTrackEventTraceLoadsPrefix) {
  CheckTruncations(Nested(), "track_event_nested_tracks");
}

// ---- random and mutated bytes -----------------------------------------------

TEST(BadInput, RandomBytesNeverCrash) {
  std::mt19937_64 rng(0xFA7409);
  for (int i = 0; i < 200; ++i) {
    std::string bytes(1 + rng() % 8192, '\0');
    for (auto& c : bytes) c = static_cast<char>(rng());
    if (i % 2) bytes[0] = 0x0A;  // get past format detection into the tokenizer
    const std::string name = "random#" + std::to_string(i);
    Outcome o = LoadBytes(bytes, name);
    if (!o.status.ok()) {
      EXPECT_NE(o.status.message().find(name), std::string::npos) << o.status.message();
    }
  }
}

TEST_F(RealTraces, MutatedTraceNeverCrashes) {
  // Flip a few random bytes of a real trace: damage lands inside packets,
  // nested messages and length prefixes.
  std::mt19937_64 rng(42);
  std::string bytes = Nested();
  for (int i = 0; i < 40; ++i) {
    std::string mutated = bytes;
    for (int k = 0; k < 1 + i % 8; ++k) mutated[rng() % mutated.size()] = static_cast<char>(rng());
    const std::string name = "mutated#" + std::to_string(i);
    TraceProcessor tp;
    Outcome o = Collect(tp, tp.LoadBuffer(AsBytes(mutated), mutated.size(), name));
    if (!o.status.ok()) {
      EXPECT_NE(o.status.message().find(name), std::string::npos) << o.status.message();
      continue;
    }
    // No silent loss: an error the importer counted is also a warning that
    // says where it is.
    for (uint32_t s = 0; s < static_cast<uint32_t>(Stat::kCount); ++s) {
      const StatInfo& info = GetStatInfo(static_cast<Stat>(s));
      if (std::string(info.severity) != "error" || tp.storage().stats.Get(static_cast<Stat>(s)) == 0)
        continue;
      bool located = false;
      for (const std::string& w : o.report.warnings)
        located |= w.rfind(name + ": ", 0) == 0 && (w.find("byte offset ") != std::string::npos ||
                                                     w.find(" at ts ") != std::string::npos);
      EXPECT_TRUE(located) << name << ": " << info.name << " counted, warnings:\n" << o.Warnings();
    }
  }
}

// ---- specific malformations -------------------------------------------------

// As upstream: nothing at all is an empty trace (every table empty), with a
// warning naming the input.
TEST(BadInput, EmptyBufferIsAnEmptyTraceNamingTheInput) {
  static const uint8_t kNothing[1] = {0};
  Outcome o = LoadBytes(kNothing, 0, "empty-buffer");
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_TRUE(o.AnyWarningContains("empty-buffer: byte offset 0: the file is empty"))
      << o.Warnings();
}

TEST(BadInput, HugeLengthAloneIsFatal) {
  std::string bytes = Tag(1, 2) + Varint(uint64_t{1} << 62);
  Outcome o = LoadBytes(bytes, "huge");
  ASSERT_FALSE(o.status.ok());
  EXPECT_NE(o.status.message().find("huge: byte offset 0"), std::string::npos)
      << o.status.message();
}

TEST(BadInput, HugeLengthAfterGoodPacketKeepsThePacket) {
  std::string good = GoodPacket(1000);
  std::string bytes = good + Tag(1, 2) + Varint(uint64_t{1} << 40) + std::string(64, 'x');
  Outcome o = LoadBytes(bytes, "huge-after");
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_EQ(o.report.packets, 1u);
  EXPECT_TRUE(o.AnyWarningContains("huge-after: byte offset " + std::to_string(good.size())))
      << o.Warnings();
  EXPECT_GE(o.decode_errors + o.truncated_bytes, 1);
}

TEST(BadInput, OverlongVarintIsNotAPacket) {
  // Eleven continuation bytes: no valid varint can be read from here.
  std::string bytes = GoodPacket(5) + Tag(1, 2) + std::string(11, '\xff') + std::string(8, '\x01');
  Outcome o = LoadBytes(bytes, "overlong");
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_EQ(o.report.packets, 1u);
  EXPECT_FALSE(o.report.warnings.empty());
  EXPECT_TRUE(o.AnyWarningContains("overlong")) << o.Warnings();
}

TEST(BadInput, NestedLengthPastPacketEndIsADecodeError) {
  // The packet's own length is right, but its ftrace_events field claims more
  // bytes than the packet holds.
  std::string body = VarintField(perfetto::protos::TracePacket::kTimestampFieldNumber, 7) +
                     Tag(perfetto::protos::TracePacket::kFtraceEventsFieldNumber, 2) +
                     Varint(100000) + "abc";
  std::string bytes = GoodPacket(1) + LenField(1, body) + GoodPacket(9);
  Outcome o = LoadBytes(bytes, "nested-len");
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_EQ(o.report.packets, 3u);
  EXPECT_GE(o.decode_errors, 1);
}

TEST(BadInput, WrongTopLevelWireTypeStopsWithAWarning) {
  std::string good = GoodPacket(100);
  std::string bytes = good + Tag(1, 3) + GoodPacket(200);  // start-group: never valid here
  Outcome o = LoadBytes(bytes, "wire");
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_EQ(o.report.packets, 1u);
  EXPECT_TRUE(o.AnyWarningContains("byte offset " + std::to_string(good.size()))) << o.Warnings();
  EXPECT_TRUE(o.AnyWarningContains("wire")) << o.Warnings();
  EXPECT_GE(o.decode_errors, 1);
}

TEST(BadInput, WrongWireTypesInsidePacketsNeverCrash) {
  using perfetto::protos::FtraceEvent;
  using perfetto::protos::FtraceEventBundle;
  using perfetto::protos::TracePacket;
  std::vector<std::string> bodies = {
      // timestamp as a string
      LenField(TracePacket::kTimestampFieldNumber, "12345678"),
      // ftrace bundle as a varint
      VarintField(TracePacket::kFtraceEventsFieldNumber, 3),
      // an event whose sched_switch is a fixed32 and whose timestamp is fixed64
      LenField(TracePacket::kFtraceEventsFieldNumber,
               VarintField(FtraceEventBundle::kCpuFieldNumber, 1) +
                   LenField(FtraceEventBundle::kEventFieldNumber,
                            Tag(FtraceEvent::kTimestampFieldNumber, 1) + std::string(8, '\1') +
                                Tag(FtraceEvent::kSchedSwitchFieldNumber, 5) + "abcd")),
      // an event whose sched_switch fields are all strings
      LenField(TracePacket::kFtraceEventsFieldNumber,
               LenField(FtraceEventBundle::kEventFieldNumber,
                        VarintField(FtraceEvent::kTimestampFieldNumber, 50) +
                            LenField(FtraceEvent::kSchedSwitchFieldNumber,
                                     LenField(1, "x") + LenField(2, "y") + LenField(3, "z") +
                                         LenField(4, "w") + LenField(5, "v") + LenField(7, "u")))),
      // compact_sched with mismatched array lengths
      LenField(TracePacket::kFtraceEventsFieldNumber,
               LenField(FtraceEventBundle::kCompactSchedFieldNumber,
                        LenField(1, Varint(10) + Varint(20)) + LenField(3, Varint(5)))),
      // process tree / track event / clock snapshot with garbage inside
      LenField(TracePacket::kProcessTreeFieldNumber, Tag(1, 2) + Varint(2) + Tag(1, 0)),
      LenField(TracePacket::kTrackEventFieldNumber, VarintField(1, 1) + Tag(9, 1) + "zz"),
      LenField(TracePacket::kClockSnapshotFieldNumber, LenField(1, VarintField(1, 0))),
      LenField(TracePacket::kTrackDescriptorFieldNumber, Tag(1, 5) + "1234"),
      LenField(TracePacket::kInternedDataFieldNumber, LenField(1, Tag(1, 2) + "\x05x")),
  };
  for (size_t i = 0; i < bodies.size(); ++i) {
    std::string bytes = GoodPacket(1) + LenField(1, bodies[i]) + GoodPacket(2);
    const std::string name = "inner-wire#" + std::to_string(i);
    Outcome o = LoadBytes(bytes, name);
    ASSERT_TRUE(o.status.ok()) << name << ": " << o.status.message();
    EXPECT_EQ(o.report.packets, 3u) << name;
  }
}

TEST(BadInput, OnlyNonPacketFieldsIsFatal) {
  // Valid framing, but not one `packet` field: nothing to load.
  std::string bytes = VarintField(2, 5) + VarintField(3, 7);
  Outcome o = LoadBytes(bytes, "nopackets");
  ASSERT_FALSE(o.status.ok());
  EXPECT_NE(o.status.message().find("nopackets"), std::string::npos) << o.status.message();
}

// ---- compression wrappers and compressed_packets ---------------------------

TEST_F(RealTraces, GzipWrappedTraceLoadsLikeThePlainOne) {
  TempDir dir;
  auto plain = LoadPath(TestData("android_sched_binder_10s.perfetto-trace"));
  ASSERT_TRUE(plain.status.ok()) << plain.status.message();
  auto path = dir.Write("trace.gz", Deflate(Sched(), /*gzip=*/true));
  auto gz = LoadPath(path);
  ASSERT_TRUE(gz.status.ok()) << gz.status.message();
  EXPECT_NE(gz.report.format.find("gzip"), std::string::npos) << gz.report.format;
  EXPECT_EQ(gz.report.packets, plain.report.packets);
  EXPECT_EQ(gz.event_rows(), plain.event_rows());
  EXPECT_EQ(gz.threads, plain.threads);
  EXPECT_TRUE(gz.report.warnings.empty()) << gz.Warnings();
}

TEST_F(RealTraces, GzipTruncatedMidStreamLoadsPrefixWithWarning) {
  TempDir dir;
  std::string gz = Deflate(Sched(), true);
  auto full = LoadBytes(Sched(), "full");
  auto path = dir.Write("cut.gz", gz.substr(0, gz.size() / 2));
  auto o = LoadPath(path);
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_GT(o.report.packets, 0u);
  EXPECT_LT(o.report.packets, full.report.packets);
  EXPECT_LE(o.event_rows(), full.event_rows());
  EXPECT_TRUE(o.AnyWarningContains(path.string())) << o.Warnings();
}

TEST_F(RealTraces, GzipCutInsideHeaderIsFatalNamingTheFile) {
  TempDir dir;
  auto path = dir.Write("header.gz", Deflate(Sched(), true).substr(0, 6));
  auto o = LoadPath(path);
  ASSERT_FALSE(o.status.ok());
  EXPECT_NE(o.status.message().find(path.string()), std::string::npos) << o.status.message();
}

TEST_F(RealTraces, ZstdWrappedTraceLoadsLikeThePlainOne) {
  TempDir dir;
  auto plain = LoadBytes(Nested(), "plain");
  std::string z = ZstdCompress(Nested());
  ASSERT_FALSE(z.empty());
  auto o = LoadPath(dir.Write("trace.zst", z));
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_NE(o.report.format.find("zstd"), std::string::npos) << o.report.format;
  EXPECT_EQ(o.report.packets, plain.report.packets);
  EXPECT_EQ(o.event_rows(), plain.event_rows());
}

TEST_F(RealTraces, GzipBufferLoadsLikeAGzipFile) {
  std::string gz = Deflate(Nested(), true);
  auto o = LoadBytes(gz, "buffer.gz");
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_EQ(o.report.packets, LoadBytes(Nested(), "plain").report.packets);
}

// Re-packs a real trace as compressed_packets (every `group` packets become one
// zlib-deflated inner Trace), as traced does with compression enabled.
std::string Recompress(const std::string& bytes, int group, bool corrupt_one) {
  perfetto::protos::Trace in;
  if (!in.ParseFromString(bytes)) return {};
  perfetto::protos::Trace out;
  for (int i = 0; i < in.packet_size(); i += group) {
    perfetto::protos::Trace chunk;
    for (int j = i; j < std::min(in.packet_size(), i + group); ++j)
      *chunk.add_packet() = in.packet(j);
    std::string deflated = Deflate(chunk.SerializeAsString(), /*gzip=*/false);
    if (corrupt_one && i == group) deflated = deflated.substr(0, deflated.size() / 2) + "garbage";
    out.add_packet()->set_compressed_packets(deflated);
  }
  return out.SerializeAsString();
}

TEST_F(RealTraces, CompressedPacketsLoadLikeThePlainTrace) {
  std::string packed = Recompress(Sched(), 20, false);
  ASSERT_FALSE(packed.empty());
  FramingWalk plain_walk = WalkTraceFraming(AsBytes(Sched()), Sched().size());
  FramingWalk outer_walk = WalkTraceFraming(AsBytes(packed), packed.size());
  auto plain = LoadBytes(Sched(), "plain");
  auto o = LoadBytes(packed, "compressed");
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  // The loader counts the outer wrappers and the packets inside them.
  EXPECT_EQ(o.report.packets, plain_walk.packets + outer_walk.packets);
  EXPECT_EQ(o.compressed_errors, 0);
  EXPECT_EQ(o.sched, plain.sched);
  EXPECT_EQ(o.counter, plain.counter);
  EXPECT_EQ(o.slice, plain.slice);
  EXPECT_EQ(o.ftrace, plain.ftrace);
  EXPECT_EQ(o.threads, plain.threads);
  EXPECT_EQ(o.processes, plain.processes);
}

TEST_F(RealTraces, CorruptCompressedPacketsAreCountedAndSkipped) {
  std::string packed = Recompress(Sched(), 20, true);
  ASSERT_FALSE(packed.empty());
  auto plain = LoadBytes(Sched(), "plain");
  auto o = LoadBytes(packed, "corrupt-compressed");
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_EQ(o.compressed_errors, 1);
  EXPECT_LE(o.event_rows(), plain.event_rows());
}

// ---- file-based errors name the path -----------------------------------------

TEST(BadFile, MissingFileNamesThePath) {
  TempDir dir;
  auto path = dir.path() / "does-not-exist.pftrace";
  auto o = LoadPath(path);
  ASSERT_FALSE(o.status.ok());
  EXPECT_NE(o.status.message().find(path.string()), std::string::npos) << o.status.message();
}

// Upstream loads an empty file as an empty trace (every table empty); Fathom
// does the same and warns with the path and offset.
TEST(BadFile, EmptyFileIsAnEmptyTraceWithAWarning) {
  TempDir dir;
  auto path = dir.Write("empty.pftrace", "");
  auto o = LoadPath(path);
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_TRUE(o.AnyWarningContains(path.string() + ": byte offset 0: the file is empty"))
      << o.Warnings();
  EXPECT_EQ(o.event_rows(), 0u);
}

TEST(BadFile, GarbageFileNamesThePathAndOffset) {
  TempDir dir;
  auto path = dir.Write("garbage.bin", std::string("\x01\x02\x03\xff\xfe garbage", 13));
  auto o = LoadPath(path);
  ASSERT_FALSE(o.status.ok());
  EXPECT_NE(o.status.message().find(path.string() + ": byte offset 0"), std::string::npos)
      << o.status.message();
}

TEST_F(RealTraces, TruncatedFileWarnsWithPathAndOffset) {
  TempDir dir;
  const size_t cut = Sched().size() - 1000;
  auto path = dir.Write("cut.pftrace", Sched().substr(0, cut));
  FramingWalk walk = WalkTraceFraming(AsBytes(Sched()), cut);
  auto o = LoadPath(path);
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_EQ(o.report.packets, walk.packets);
  EXPECT_EQ(o.truncated_bytes, static_cast<int64_t>(cut - walk.whole_bytes));
  EXPECT_TRUE(
      o.AnyWarningContains(path.string() + ": byte offset " + std::to_string(walk.whole_bytes)))
      << o.Warnings();
}

}  // namespace
}  // namespace fathom
