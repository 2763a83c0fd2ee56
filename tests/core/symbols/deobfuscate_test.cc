// fathom-cli deobfuscate end to end and the ProGuard map reader. The heap
// graph is upstream's hand-written legacy test trace with its own
// DeobfuscationMapping packet removed; a ProGuard map written to say the same
// thing must give the same deobfuscated names as upstream's packet did.
#include <gtest/gtest.h>

#include <cstring>

#include "core/symbols/proguard_map.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/core/symbols/test_util.h"

namespace fathom::symbols_test {
namespace {
using fathom::testing::ReadFileBytes;
using fathom::testing::TempDir;
using fathom::testing::TestData;

const std::string kCli = FATHOM_CLI;

TEST(ProguardMap, ParsesClassesFieldsMethodsAndComments) {
  auto m = symbols::ParseProguardMap(
      "# compiler: R8\n"
      "com.example.Foo -> a.b:\n"
      "# {\"id\":\"sourceFile\",\"fileName\":\"Foo.java\"}\n"
      "    int count -> a\n"
      "    java.lang.String com.example.Other.name -> b\n"
      "    1:3:void run(int):10:12 -> c\n"
      "    4:4:void com.example.Bar.inlined():7:7 -> c\n"
      "    void <init>() -> <init>\n"
      "\n"
      "com.example.Baz -> a.c:\n",
      "map.txt");
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(m->size(), 2u);
  const symbols::ProguardClass& foo = m->at("a.b");
  EXPECT_EQ(foo.deobfuscated, "com.example.Foo");
  EXPECT_EQ(foo.fields.at("a"), "count");
  EXPECT_EQ(foo.fields.at("b"), "com.example.Other.name");
  EXPECT_EQ(symbols::MethodDisplayName(foo, foo.methods.at("c")),
            "com.example.Bar.inlined | com.example.Foo.run");
  EXPECT_EQ(m->at("a.c").deobfuscated, "com.example.Baz");
}

TEST(ProguardMap, MalformedLinesNameFileAndLine) {
  struct Case {
    const char* text;
    const char* error;
  } cases[] = {
      {"com.Foo -> a:\n    int x a\n", "map.txt:2: "},
      {"    int x -> a\n", "map.txt:1: member line before any class line"},
      {"# c\ncom.Foo -> a\n", "map.txt:2: expected a class line"},
      {"com.Foo -> a:\ncom.Bar -> a:\n", "map.txt:2: class a already defined at line 1"},
      {"com.Foo -> a:\n    void run( -> b\n", "map.txt:2: malformed method"},
      {"com.Foo -> a:\n    int x -> a b\n", "map.txt:2: expected one obfuscated member"},
  };
  for (const Case& c : cases) {
    auto m = symbols::ParseProguardMap(c.text, "map.txt");
    ASSERT_FALSE(m.ok()) << c.text;
    EXPECT_NE(m.status().message().find(c.error), std::string::npos)
        << c.text << " -> " << m.status().message();
  }
  auto missing = symbols::ReadProguardMap("/nonexistent/mapping.txt");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/mapping.txt"), std::string::npos);
}

TEST(ProguardMap, Specs) {
  auto s = symbols::ParseProguardMapSpecs("com.a=a.txt:com.b=/x/b.txt");
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->size(), 2u);
  EXPECT_EQ((*s)[1].package, "com.b");
  EXPECT_EQ((*s)[1].file, "/x/b.txt");
  EXPECT_FALSE(symbols::ParseProguardMapSpecs("mapping.txt").ok());
}

class DeobfuscateCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string bytes = ReadFileBytes(TestData("java_heap_graph_legacy.pb"));
    ASSERT_TRUE(original_.ParseFromString(bytes));
    perfetto::protos::Trace stripped;
    for (const auto& p : original_.packet())
      if (!p.has_deobfuscation_mapping()) *stripped.add_packet() = p;
    ASSERT_LT(stripped.packet_size(), original_.packet_size());
    // system_server (uid 1000) runs the mapping's package: upstream only
    // deobfuscates a frame with the mapping of a package its process runs.
    for (const auto& p : original_.packet())
      if (p.has_deobfuscation_mapping()) package_ = p.deobfuscation_mapping().package_name();
    ASSERT_FALSE(package_.empty());
    auto* packages = stripped.add_packet()->mutable_packages_list()->add_packages();
    packages->set_name(package_);
    packages->set_uid(1000);
    // Plus allocation samples with Java frames of obfuscated class `a`
    // (method `c`) called from an unobfuscated one. A dump's own timestamp is
    // MONOTONIC_COARSE: without a clock snapshot readers drop the dump.
    auto* snapshot = stripped.add_packet();
    snapshot->set_trusted_packet_sequence_id(8);
    for (uint32_t clock : {6u /* BOOTTIME */, 4u /* MONOTONIC_COARSE */}) {
      auto* c = snapshot->mutable_clock_snapshot()->add_clocks();
      c->set_clock_id(clock);
      c->set_timestamp(10);
    }
    auto* packet = stripped.add_packet();
    packet->set_timestamp(20);
    packet->set_trusted_packet_sequence_id(7);
    auto* pp = packet->mutable_profile_packet();
    // Frames need a mapping (readers drop a frame whose mapping is not defined):
    // system_server's services.odex.
    const char* names[] = {"", "Foo.main", "a.c", "system", "framework", "services.odex"};
    for (uint64_t i = 1; i <= 5; ++i) {
      auto* str = pp->add_strings();
      str->set_iid(i);
      str->set_str(names[i]);
    }
    auto* mapping = pp->add_mappings();
    mapping->set_iid(1);
    mapping->set_start(0x70000000);
    mapping->set_end(0x70100000);
    for (uint64_t part = 3; part <= 5; ++part) mapping->add_path_string_ids(part);
    for (uint64_t i = 1; i <= 2; ++i) {
      auto* f = pp->add_frames();
      f->set_iid(i);
      f->set_function_name_id(i);
      f->set_mapping_id(1);
      f->set_rel_pc(i * 16);
    }
    auto* cs = pp->add_callstacks();
    cs->set_iid(1);
    cs->add_frame_ids(1);
    cs->add_frame_ids(2);
    auto* dump = pp->add_process_dumps();
    dump->set_pid(2);
    dump->set_timestamp(20);
    auto* sample = dump->add_samples();
    sample->set_callstack_id(1);
    sample->set_self_allocated(1000);
    sample->set_alloc_count(1);
    trace_ = dir_.Write("graph.pftrace", stripped.SerializeAsString()).string();
  }
  TempDir dir_;
  perfetto::protos::Trace original_;
  std::string package_;
  std::string trace_;
};

// Class names, then field names, with their deobfuscated forms.
std::vector<std::string> Names(TraceProcessor& tp) {
  std::vector<std::string> rows =
      Rows(tp, "select name, deobfuscated_name from heap_graph_class order by id");
  for (std::string& r : Rows(tp,
                             "select distinct field_name, deobfuscated_field_name from "
                             "heap_graph_reference order by id"))
    rows.push_back(r);
  return rows;
}

TEST_F(DeobfuscateCli, MapGivesUpstreamsNames) {
  // What upstream's own DeobfuscationMapping packet yields.
  auto expected_tp = Load(TestData("java_heap_graph_legacy.pb").string());
  std::vector<std::string> expected = Names(*expected_tp);
  auto plain = Load(trace_);
  for (const std::string& row : Rows(*plain, "select deobfuscated_name from heap_graph_class"))
    EXPECT_EQ(row, "<null>");
  // The same mapping written as a ProGuard map (members of upstream's packet).
  std::string map = "# compiler: R8\n";
  std::string package;
  for (const auto& p : original_.packet()) {
    if (!p.has_deobfuscation_mapping()) continue;
    package = p.deobfuscation_mapping().package_name();
    for (const auto& c : p.deobfuscation_mapping().obfuscated_classes()) {
      map += c.deobfuscated_name() + " -> " + c.obfuscated_name() + ":\n";
      for (const auto& m : c.obfuscated_members())
        map += "    int " + m.deobfuscated_name() + " -> " + m.obfuscated_name() + "\n";
    }
  }
  ASSERT_NE(map.find("DeobfuscatedA -> a:"), std::string::npos) << map;
  // The Java frame's method, with R8 line ranges, after the fields.
  size_t cls = map.find("DeobfuscatedA -> a:\n");
  map.insert(cls + strlen("DeobfuscatedA -> a:\n"), "    1:3:void run(int):10:12 -> c\n");
  map += "com.example.Unused -> zz:\n    int f -> a\n";  // not in the trace: not written
  auto map_path = dir_.Write("mapping.txt", map);
  std::string out = (dir_.path() / "deobf.pb").string();
  RunResult run = RunCmd(kCli + " deobfuscate " + Quote(trace_) + " -o " + Quote(out) + " --map " +
                         Quote(package + "=" + map_path.string()));
  ASSERT_EQ(run.code, 0) << run.output;
  perfetto::protos::Trace written;
  ASSERT_TRUE(written.ParseFromString(ReadFileBytes(out)));
  ASSERT_EQ(written.packet_size(), 1);
  EXPECT_EQ(written.packet(0).deobfuscation_mapping().package_name(), package);
  for (const auto& c : written.packet(0).deobfuscation_mapping().obfuscated_classes())
    EXPECT_NE(c.obfuscated_name(), "zz");

  std::string combined = dir_.Write("deobf.pftrace", ReadFileBytes(trace_) + ReadFileBytes(out));
  auto tp = Load(combined);
  std::vector<std::string> got = Names(*tp);
  EXPECT_EQ(got, expected);
  // Names this test knows from upstream's packet: class, array, field.
  auto has = [&](const std::string& row) {
    return std::find(got.begin(), got.end(), row) != got.end();
  };
  EXPECT_TRUE(has("a|DeobfuscatedA"));
  EXPECT_TRUE(has("a[]|DeobfuscatedA[]"));
  EXPECT_TRUE(has("a.a|DeobfuscatedA.deobfuscatedA")) << ::testing::PrintToString(got);
  EXPECT_EQ(Rows(*tp, "select name, deobfuscated_name from stack_profile_frame order by id"),
            (std::vector<std::string>{"Foo.main|<null>", "a.c|DeobfuscatedA.run"}));
  RunResult native =
      RunCmd(kCli + " flamegraph " + Quote(combined) + " --kind native --format folded");
  EXPECT_NE(native.output.find("Foo.main;DeobfuscatedA.run 1000"), std::string::npos)
      << native.output;
  // And the Java heap flamegraph shows the deobfuscated class.
  RunResult fg =
      RunCmd(kCli + " flamegraph " + Quote(combined) + " --kind java-graph --format folded");
  EXPECT_EQ(fg.code, 0) << fg.output;
  EXPECT_NE(fg.output.find("DeobfuscatedA"), std::string::npos) << fg.output;

  // The environment variables take the same syntax.
  RunResult env = RunCmd("PERFETTO_PROGUARD_MAP=" + Quote(package + "=" + map_path.string()) + " " +
                         kCli + " deobfuscate " + Quote(trace_) + " -o " + Quote(out + "2"));
  EXPECT_EQ(env.code, 0) << env.output;
  EXPECT_EQ(ReadFileBytes(out + "2"), ReadFileBytes(out));
}

// Without package_list the trace does not say which app system_server's Java
// frames belong to: upstream then leaves them obfuscated (checked with the
// oracle; tests/conformance/cases/deobfuscation_needs_package_list_manual),
// and the command says why and what to record.
TEST_F(DeobfuscateCli, FramesOfNoKnownPackageStayObfuscatedWithAWarning) {
  perfetto::protos::Trace trace;
  ASSERT_TRUE(trace.ParseFromString(ReadFileBytes(trace_)));
  perfetto::protos::Trace no_packages;
  for (const auto& p : trace.packet())
    if (!p.has_packages_list()) *no_packages.add_packet() = p;
  ASSERT_LT(no_packages.packet_size(), trace.packet_size());
  std::string plain = dir_.Write("nopkg.pftrace", no_packages.SerializeAsString()).string();
  auto map = dir_.Write("m.txt", "DeobfuscatedA -> a:\n    void run(int) -> c\n");
  std::string out = (dir_.path() / "nopkg-deobf.pb").string();
  RunResult run = RunCmd(kCli + " deobfuscate " + Quote(plain) + " -o " + Quote(out) + " --map " +
                         Quote(package_ + "=" + map.string()));
  ASSERT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("Java frames stay obfuscated for " + package_), std::string::npos)
      << run.output;
  auto tp = Load(dir_.Write("nopkg-all.pftrace", ReadFileBytes(plain) + ReadFileBytes(out)));
  EXPECT_EQ(Rows(*tp, "select name, deobfuscated_name from stack_profile_frame order by id"),
            (std::vector<std::string>{"Foo.main|<null>", "a.c|<null>"}));
  EXPECT_EQ(Rows(*tp, "select deobfuscated_name from heap_graph_class where name = 'a'"),
            (std::vector<std::string>{"DeobfuscatedA"}));
}

TEST_F(DeobfuscateCli, BadMapsAreClearErrors) {
  std::string out = (dir_.path() / "deobf.pb").string();
  RunResult missing = RunCmd(kCli + " deobfuscate " + Quote(trace_) + " -o " + Quote(out) +
                             " --map com.x=/nonexistent/map.txt");
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.output.find("/nonexistent/map.txt: cannot open"), std::string::npos)
      << missing.output;
  auto bad = dir_.Write("bad.txt", "com.Foo -> a:\n    int x -> a\nthis is not a mapping\n");
  RunResult malformed = RunCmd(kCli + " deobfuscate " + Quote(trace_) + " -o " + Quote(out) +
                               " --map " + Quote("com.x=" + bad.string()));
  EXPECT_EQ(malformed.code, 1);
  EXPECT_NE(malformed.output.find(bad.string() + ":3: "), std::string::npos) << malformed.output;
  RunResult spec = RunCmd("FATHOM_PROGUARD_MAP=justafile.txt " + kCli + " deobfuscate " +
                          Quote(trace_) + " -o " + Quote(out));
  EXPECT_EQ(spec.code, 2);
  EXPECT_NE(spec.output.find("package=file"), std::string::npos) << spec.output;
}

}  // namespace
}  // namespace fathom::symbols_test
