// pprof import and Chrome's StreamingProfilePacket, on inputs made without
// Fathom: the profiles and the trace are hand-written text protos under
// tests/core/pprof/ that protoc encodes at build time (one gzipped with
// gzip), so every expected number below is read off those files. The round
// trip checks Fathom's own pprof export against SQL sums of the original.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "core/export/flamegraph_export.h"
#include "core/flamegraph/profiles.h"
#include "core/import/trace_format.h"
#include "core/trace_processor.h"
#include "third_party/pprof/profile.pb.h"
#include "trace_test_util.h"

namespace fathom {
namespace {

namespace fs = std::filesystem;
using testing::AsBytes;
using testing::ReadFileBytes;

fs::path Data(const std::string& name) { return fs::path(FATHOM_PPROF_DATA_DIR) / name; }

using testing::QueryInt;

// Every row of a one-column query, as text ("NULL" for NULL).
std::vector<std::string> QueryColumn(TraceProcessor& tp, const std::string& sql) {
  std::vector<std::string> out;
  auto it = tp.Query(sql);
  EXPECT_TRUE(it->NextResultSet()) << sql << ": " << it->status().message();
  while (it->NextRow()) {
    auto v = it->Get(0);
    if (v.type == SqlValue::kNull)
      out.push_back("NULL");
    else if (v.type == SqlValue::kString)
      out.push_back(std::string(v.s));
    else if (v.type == SqlValue::kDouble)
      out.push_back(std::to_string(static_cast<int64_t>(v.d)));
    else
      out.push_back(std::to_string(v.i));
  }
  return out;
}

std::unique_ptr<TraceProcessor> LoadOk(const fs::path& p) {
  auto tp = std::make_unique<TraceProcessor>();
  Status st = tp->LoadFile(p.string());
  EXPECT_TRUE(st.ok()) << st.message();
  return tp;
}

Status LoadBytes(const std::string& bytes, TraceProcessor* tp) {
  return tp->LoadBuffer(AsBytes(bytes), bytes.size(), "bad.pprof");
}

const ProfileDump* FindType(const std::vector<ProfileDump>& dumps, const std::string& type) {
  for (const ProfileDump& d : dumps)
    if (d.kind == ProfileKind::kAggregate && d.sample_type == type) return &d;
  return nullptr;
}

TEST(Pprof, GzippedHeapProfile) {
  auto tp = LoadOk(Data("heap.pb.gz"));
  EXPECT_NE(tp->report().format.find("pprof"), std::string::npos) << tp->report().format;
  EXPECT_NE(tp->report().format.find("gzip"), std::string::npos) << tp->report().format;

  EXPECT_EQ(
      QueryColumn(*tp,
                  "select sample_type_type || '/' || sample_type_unit || '/' || scope "
                  "from __intrinsic_aggregate_profile order by id"),
      (std::vector<std::string>{"alloc_objects/count/pprof_file", "alloc_space/bytes/pprof_file",
                                "inuse_objects/count/pprof_file", "inuse_space/bytes/pprof_file"}));
  const std::string per_type =
      " from __intrinsic_aggregate_sample s join __intrinsic_aggregate_profile p"
      " on s.aggregate_profile_id = p.id group by p.id order by p.id";
  EXPECT_EQ(QueryColumn(*tp, "select sum(s.value)" + per_type),
            (std::vector<std::string>{"19", "5650", "6", "4382"}));
  // Zero values are not stored: samples B has no in-use values.
  EXPECT_EQ(QueryColumn(*tp, "select count(*)" + per_type),
            (std::vector<std::string>{"4", "4", "3", "3"}));
  EXPECT_EQ(QueryInt(*tp, "select value from stats where name = 'pprof_labels_ignored'"), 3);

  // Mappings: the two of the file plus the shared [unknown] one of location 5.
  EXPECT_EQ(QueryColumn(*tp,
                        "select name || ' ' || ifnull(build_id, '-') || ' ' || start || ' ' || "
                        "\"end\" || ' ' || exact_offset from stack_profile_mapping order by name"),
            (std::vector<std::string>{
                "/lib/x86_64-linux-gnu/libc.so.6 - 139637976727552 139637978824704 4096",
                "/usr/bin/server abc123buildid 4194304 5242880 0", "[unknown] - 0 0 0"}));
  // One frame per function of each location (inlined ones too), plus the
  // unsymbolized one; malloc's pc is relative to its mapping plus file offset.
  EXPECT_EQ(QueryColumn(*tp, "select ifnull(name, 'NULL') from stack_profile_frame order by name"),
            (std::vector<std::string>{"NULL", "_ZN6fathom5Arena8AllocateEm", "handle_request",
                                      "main", "malloc", "parse_json"}));
  EXPECT_EQ(QueryInt(*tp, "select rel_pc from stack_profile_frame where name = 'malloc'"),
            0x1234 + 0x1000);
  // parse_json was inlined into handle_request: it sits one level below it.
  EXPECT_EQ(QueryInt(*tp,
                     "select c.depth from stack_profile_callsite c join stack_profile_frame f"
                     " on c.frame_id = f.id where f.name = 'parse_json'"),
            2);

  std::vector<ProfileDump> dumps = ListProfiles(tp->storage());
  ASSERT_EQ(dumps.size(), 4u);
  auto picked = PickLargestProfile(dumps, std::nullopt, std::nullopt);
  ASSERT_TRUE(picked);
  EXPECT_EQ(picked->sample_type, "inuse_space");  // default_sample_type
  EXPECT_TRUE(AggregateIsBytes(*picked));
  EXPECT_EQ(picked->Total(FlamegraphView::kValue), 4382);
  EXPECT_EQ(FindType(dumps, "alloc_objects")->Total(FlamegraphView::kValue), 19);

  auto fg = BuildFlamegraph(tp->storage(), RequestFor(*picked, std::nullopt));
  ASSERT_TRUE(fg.ok()) << fg.status().message();
  EXPECT_EQ(fg->Total(Metric::kSize), 4382);
  ExportOptions eo;
  eo.kind = ProfileKind::kAggregate;
  eo.view = FlamegraphView::kValue;
  std::string folded = ExportFolded(*fg, eo);
  EXPECT_NE(folded.find("main;handle_request;parse_json;fathom::Arena::Allocate(unsigned long);"
                        "malloc 256\n"),
            std::string::npos)
      << folded;
  EXPECT_NE(folded.find("main;malloc 4096\n"), std::string::npos) << folded;
  EXPECT_NE(folded.find("main;[unknown] 30\n"), std::string::npos) << folded;
}

TEST(Pprof, RawCpuProfileWithoutMappings) {
  auto tp = LoadOk(Data("cpu.pb"));
  EXPECT_EQ(tp->report().format, "pprof");
  std::vector<ProfileDump> dumps = ListProfiles(tp->storage());
  ASSERT_EQ(dumps.size(), 2u);
  // No default_sample_type: the last one, as pprof does.
  auto picked = PickLargestProfile(dumps, ProfileKind::kAggregate, std::nullopt);
  ASSERT_TRUE(picked);
  EXPECT_EQ(picked->sample_type, "cpu");
  EXPECT_EQ(picked->sample_unit, "nanoseconds");
  EXPECT_EQ(picked->Total(FlamegraphView::kValue), 60000000);

  const ProfileDump* samples = FindType(dumps, "samples");
  ASSERT_TRUE(samples);
  auto fg = BuildFlamegraph(tp->storage(), RequestFor(*samples, std::nullopt));
  ASSERT_TRUE(fg.ok());
  ExportOptions eo;
  eo.kind = ProfileKind::kAggregate;
  eo.view = FlamegraphView::kValue;
  EXPECT_EQ(ExportFolded(*fg, eo), "run 1\nrun;compute 3\nrun;io_wait 2\n");
  EXPECT_EQ(QueryInt(*tp, "select count(*) from stack_profile_mapping where name = '[unknown]'"),
            1);
}

TEST(Pprof, DetectionTellsProfilesFromTraces) {
  for (const char* name : {"heap.pb", "cpu.pb"}) {
    std::string b = ReadFileBytes(Data(name));
    EXPECT_EQ(DetectTraceFormat(AsBytes(b), b.size()), TraceFormat::kPprof) << name;
  }
  std::string s = ReadFileBytes(Data("streaming_profile.pb"));
  EXPECT_EQ(DetectTraceFormat(AsBytes(s), s.size()), TraceFormat::kProto);
  // Every uncompressed Perfetto trace we have stays a Perfetto trace.
  size_t checked = 0;
  for (const fs::path& dir :
       {testing::SharedDir() / "difftests", testing::SharedDir() / "testdata"})
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      if (!e.is_regular_file() || e.path().extension() != ".pb") continue;
      std::string b = ReadFileBytes(e.path());
      if (b.size() > (1 << 20)) b.resize(1 << 20);
      if (b.empty() || b[0] != 0x0A) continue;
      EXPECT_EQ(DetectTraceFormat(AsBytes(b), b.size()), TraceFormat::kProto) << e.path();
      ++checked;
    }
  EXPECT_GT(checked, 50u);
}

TEST(Pprof, TruncatedProfilesFailWithOffsets) {
  std::string full = ReadFileBytes(Data("heap.pb"));
  // protoc writes fields in number order: everything up to string_table (6)
  // is needed; time_nanos and default_sample_type after it are optional.
  perftools::profiles::Profile p;
  ASSERT_TRUE(p.ParseFromString(full));
  p.clear_time_nanos();
  p.clear_default_sample_type();
  const size_t needed = p.ByteSizeLong();
  ASSERT_LT(needed, full.size());
  for (size_t cut = 1; cut < full.size(); ++cut) {
    TraceProcessor tp;
    Status st = LoadBytes(full.substr(0, cut), &tp);
    if (cut < needed) {
      EXPECT_FALSE(st.ok()) << "cut at " << cut;
      EXPECT_NE(st.message().find("byte offset"), std::string::npos) << st.message();
      EXPECT_EQ(tp.storage().profile.aggregate_sample.row_count(), 0u) << "cut at " << cut;
    }
  }
  // A gzip stream cut in half: the inflater reports it, nothing half-loads.
  std::string gz = ReadFileBytes(Data("heap.pb.gz"));
  TraceProcessor tp;
  Status st = LoadBytes(gz.substr(0, gz.size() / 2), &tp);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("bad.pprof"), std::string::npos) << st.message();
}

// Loads `p` serialized; returns the error message ("" when it loaded).
std::string LoadError(const perftools::profiles::Profile& p) {
  TraceProcessor tp;
  Status st = LoadBytes(p.SerializeAsString(), &tp);
  if (!st.ok()) {
    EXPECT_EQ(tp.storage().profile.aggregate_profile.row_count(), 0u);
  }
  return st.ok() ? "" : st.message();
}

TEST(Pprof, BrokenReferencesAreClearErrors) {
  perftools::profiles::Profile good;
  ASSERT_TRUE(good.ParseFromString(ReadFileBytes(Data("heap.pb"))));
  EXPECT_EQ(LoadError(good), "");

  auto p = good;
  p.mutable_function(2)->set_name(99);
  std::string e = LoadError(p);
  EXPECT_NE(e.find("function.name is string index 99"), std::string::npos) << e;
  EXPECT_NE(e.find("byte offset"), std::string::npos) << e;

  p = good;
  p.mutable_sample(1)->set_location_id(0, 42);
  e = LoadError(p);
  EXPECT_NE(e.find("location id 42"), std::string::npos) << e;

  p = good;
  p.mutable_location(0)->mutable_line(0)->set_function_id(77);
  e = LoadError(p);
  EXPECT_NE(e.find("function id 77"), std::string::npos) << e;

  p = good;
  p.mutable_sample(0)->add_value(5);
  e = LoadError(p);
  EXPECT_NE(e.find("5 values but the profile declares 4"), std::string::npos) << e;

  p = good;
  p.set_string_table(0, "not empty");
  e = LoadError(p);
  EXPECT_NE(e.find("empty string"), std::string::npos) << e;
}

std::set<std::string> FrameNames(TraceProcessor& tp) {
  auto v = QueryColumn(tp, "select distinct name from stack_profile_frame where name is not null");
  return std::set<std::string>(v.begin(), v.end());
}

// Exports `dump` of `orig` with Fathom's pprof writer and loads it back.
std::vector<ProfileDump> ExportAndReload(TraceProcessor& orig, const ProfileDump& dump,
                                         TraceProcessor* back) {
  auto fg = BuildFlamegraph(orig.storage(), RequestFor(dump, std::nullopt));
  EXPECT_TRUE(fg.ok());
  if (!fg.ok()) return {};
  ExportOptions eo;
  eo.kind = dump.kind;
  eo.view = DefaultView(dump.kind);
  auto gz = ExportPprof(*fg, eo);
  EXPECT_TRUE(gz.ok());
  Status st = LoadBytes(*gz, back);
  EXPECT_TRUE(st.ok()) << st.message();
  // Every frame read back is one of the original's (by name).
  std::set<std::string> before = FrameNames(orig);
  for (const std::string& n : FrameNames(*back))
    if (n != "[unknown]") {  // the exporter's name for unsymbolized frames
      EXPECT_TRUE(before.count(n)) << n;
    }
  return ListProfiles(back->storage());
}

// Fathom's own export of a real heapprofd dump, read back: every sample
// type's total equals the SQL sum over the original dump.
TEST(Pprof, RoundTripOfFathomHeapExport) {
  TraceProcessor orig;
  ASSERT_TRUE(orig.LoadFile(testing::TestData("heapprofd_continuous_legacy.pb").string()).ok());
  auto dump = PickLargestProfile(ListProfiles(orig.storage()), ProfileKind::kNative, std::nullopt);
  ASSERT_TRUE(dump);
  TraceProcessor back;
  std::vector<ProfileDump> dumps = ExportAndReload(orig, *dump, &back);
  ASSERT_EQ(dumps.size(), 4u);
  const std::string where =
      " from heap_profile_allocation where upid = " + std::to_string(dump->upid) +
      " and ts <= " + std::to_string(dump->ts) + " and heap_name = '" + dump->heap + "'";
  const std::pair<const char*, std::string> expect[] = {
      {"alloc_objects", "select sum(count)" + where + " and count > 0"},
      {"alloc_space", "select sum(size)" + where + " and count > 0"},
      {"inuse_objects", "select sum(count)" + where},
      {"inuse_space", "select sum(size)" + where}};
  for (const auto& [type, sql] : expect) {
    const ProfileDump* d = FindType(dumps, type);
    ASSERT_TRUE(d) << type;
    int64_t want = QueryInt(orig, sql);
    EXPECT_GT(want, 0) << type;
    EXPECT_EQ(d->Total(FlamegraphView::kValue), want) << type;
  }
  // The exporter names the view it was asked for (unreleased = inuse_space).
  EXPECT_EQ(PickLargestProfile(dumps, std::nullopt, std::nullopt)->sample_type, "inuse_space");
  EXPECT_EQ(FrameNames(back), FrameNames(orig));
}

// The same with the CPU samples of a real perf trace (many frames).
TEST(Pprof, RoundTripOfFathomCpuExport) {
  TraceProcessor orig;
  ASSERT_TRUE(
      orig.LoadFile(testing::TestData("linux_compact_sched_perf_samples.pftrace").string()).ok());
  auto dump = PickLargestProfile(ListProfiles(orig.storage()), ProfileKind::kCpu, std::nullopt);
  ASSERT_TRUE(dump && dump->all_processes);
  TraceProcessor back;
  std::vector<ProfileDump> dumps = ExportAndReload(orig, *dump, &back);
  ASSERT_EQ(dumps.size(), 1u);
  EXPECT_EQ(dumps[0].sample_type, "samples");
  EXPECT_EQ(dumps[0].Total(FlamegraphView::kValue),
            QueryInt(orig, "select count(*) from perf_sample"));
  EXPECT_GT(FrameNames(back).size(), 5u);
}

TEST(StreamingProfile, ChromeSamplesBecomeCpuSamples) {
  auto tp = LoadOk(Data("streaming_profile.pb"));
  EXPECT_EQ(QueryColumn(*tp, "select ts from cpu_profile_stack_sample order by id"),
            (std::vector<std::string>{"1010000", "1015000", "1020000", "1120000"}));
  EXPECT_EQ(QueryColumn(*tp, "select process_priority from cpu_profile_stack_sample order by id"),
            (std::vector<std::string>{"3", "3", "3", "0"}));
  EXPECT_EQ(QueryColumn(*tp,
                        "select distinct t.tid || '/' || p.pid from cpu_profile_stack_sample s"
                        " join thread t using(utid) join process p using(upid)"),
            (std::vector<std::string>{"11/10"}));
  EXPECT_EQ(QueryColumn(*tp,
                        "select f.name || '@' || c.depth from cpu_profile_stack_sample s"
                        " join stack_profile_callsite c on s.callsite_id = c.id"
                        " join stack_profile_frame f on c.frame_id = f.id order by s.id"),
            (std::vector<std::string>{"Renderer::Paint@1", "Skia::DrawRect@2", "Skia::DrawRect@2",
                                      "Renderer::Paint@1"}));
  EXPECT_EQ(QueryInt(*tp, "select value from stats where name = 'stackprofile_parser_error'"), 1);

  // The CPU-samples flamegraph covers them, over the whole trace and a range.
  std::vector<ProfileDump> dumps = ListProfiles(tp->storage());
  auto all = PickLargestProfile(dumps, ProfileKind::kCpu, std::nullopt);
  ASSERT_TRUE(all);
  EXPECT_EQ(all->Total(FlamegraphView::kSamples), 4);
  EXPECT_EQ(all->ts, 1010000);
  EXPECT_EQ(all->end_ts, 1120000);
  FlamegraphRequest req;
  req.kind = ProfileKind::kCpu;
  req.view = FlamegraphView::kSamples;
  req.start_ts = 1015000;
  req.end_ts = 1120000;
  auto fg = BuildFlamegraph(tp->storage(), req);
  ASSERT_TRUE(fg.ok());
  ExportOptions eo;
  eo.kind = ProfileKind::kCpu;
  eo.view = FlamegraphView::kSamples;
  EXPECT_EQ(ExportFolded(*fg, eo), "RunLoop::Run;Renderer::Paint;Skia::DrawRect 2\n");
}

}  // namespace
}  // namespace fathom
