// HPROF import against real JDK heap dumps. The test compiles a small Java
// program (hprof/HeapFixture.java), dumps its heap with `jcmd GC.heap_dump`
// and checks Fathom's heap_graph_* tables against (a) the oracle
// (trace_processor_shell v58.2) on the same file, query by query, and (b) the
// JVM's own `jcmd GC.class_histogram` instance counts. Also: an
// -XX:+HeapDumpOnOutOfMemoryError dump, and that dump cut at several offsets
// (loads what precedes the damage, says where). Skips without a JDK or oracle.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <optional>
#include <regex>
#include <thread>

#include "core/import/trace_format.h"
#include "tests/core/hprof_test_util.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

using fathom::testing::CompileFixture;
using fathom::testing::FathomRows;
using fathom::testing::HaveTool;
using fathom::testing::JvmRun;
using fathom::testing::Oracle;
using fathom::testing::OracleRows;
using fathom::testing::ReadFileBytes;
using fathom::testing::Rows;
using fathom::testing::Shell;
using fathom::testing::TempDir;
namespace fs = std::filesystem;

// The queries both answer the same way: every table, by content (row ids and
// row order are the hash-map order of upstream's importer, not compared).
const char* kQueries[] = {
    "select count(*) from heap_graph_object",
    "select count(*) from heap_graph_class",
    "select count(*) from heap_graph_reference",
    "select count(*), count(distinct upid), min(graph_sample_ts), max(graph_sample_ts) "
    "from heap_graph_object",
    "select c.name, count(*), sum(o.self_size), sum(o.native_size), sum(o.reachable), "
    "sum(o.reference_set_id is null), min(o.heap_type) from heap_graph_object o "
    "join heap_graph_class c on o.type_id = c.id group by c.name order by c.name",
    "select ifnull(root_type, 'none'), reachable, count(*), sum(self_size) "
    "from heap_graph_object group by 1, 2 order by 1, 2",
    "select oc.name, r.field_name, r.field_type_name, count(*) from heap_graph_reference r "
    "join heap_graph_object o on r.owner_id = o.id join heap_graph_class oc on o.type_id = oc.id "
    "where r.field_name not like '[%' group by 1, 2, 3 order by 1, 2, 3",
    "select oc.name, count(*), count(distinct r.reference_set_id) from heap_graph_reference r "
    "join heap_graph_object o on r.owner_id = o.id join heap_graph_class oc on o.type_id = oc.id "
    "where r.field_name like '[%' group by 1 order by 1",
    "select count(*) from heap_graph_reference r join heap_graph_object o on r.owner_id = o.id "
    "where o.reference_set_id != r.reference_set_id",
    "select c.name, ifnull(s.name, 'none'), c.kind, c.classloader_id, c.location "
    "from heap_graph_class c left join heap_graph_class s on c.superclass_id = s.id "
    "order by 1, 2",
    "select p.pid, count(*) from heap_graph_object o join process p using (upid) group by 1",
    "select name, value from stats where name like 'hprof%' order by name",
    "select name, str_value from metadata where name = 'trace_type'",
};

void ExpectSameAsOracle(const fs::path& trace, const TempDir& dir) {
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(trace.string()).ok());
  for (const char* q : kQueries) {
    Rows want = OracleRows(trace, q, dir);
    Rows got = FathomRows(tp, q);
    ASSERT_FALSE(want.empty()) << "the oracle gave nothing for: " << q;
    EXPECT_EQ(got, want) << q;
  }
}

class HprofJvmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(Oracle())) GTEST_SKIP() << "no oracle at " << Oracle();
    if (!CompileFixture(dir_)) GTEST_SKIP() << "no JDK (javac, java, jcmd) on PATH";
  }
  TempDir dir_;
};

TEST_F(HprofJvmTest, JcmdDumpMatchesOracleAndClassHistogram) {
  fs::path out = dir_.path() / "out.txt";
  JvmRun jvm;
  jvm.pid =
      static_cast<pid_t>(std::stol(Shell("java -Xmx64m -cp " + dir_.path().string() +
                                         " HeapFixture > " + out.string() + " 2>&1 & echo $!")));
  for (int i = 0; i < 300 && ReadFileBytes(out).find("READY") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_NE(ReadFileBytes(out).find("READY"), std::string::npos);
  std::string pid = std::to_string(jvm.pid);
  fs::path dump = dir_.path() / "live.hprof";
  // The program is asleep: the heap is the same for both commands.
  std::string histogram = Shell("jcmd " + pid + " GC.class_histogram");
  Shell("jcmd " + pid + " GC.heap_dump " + dump.string());
  ASSERT_TRUE(fs::exists(dump));
  std::string head = ReadFileBytes(dump).substr(0, 64);
  EXPECT_EQ(DetectTraceFormat(fathom::testing::AsBytes(head), head.size()), TraceFormat::kHprof);

  ExpectSameAsOracle(dump, dir_);

  // The JVM's own count of the fixture's instances.
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(dump.string()).ok());
  std::regex line(R"(^\s*\d+:\s+(\d+)\s+(\d+)\s+(HeapFixture\S*)\s*$)");
  int checked = 0;
  std::istringstream in(histogram);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (!std::regex_match(l, m, line)) continue;
    Rows rows = FathomRows(tp,
                           "select count(*) from heap_graph_object o join heap_graph_class c "
                           "on o.type_id = c.id where c.name = '" +
                               m[3].str() + "'");
    EXPECT_EQ(rows.at(0).at(0), m[1].str()) << m[3];
    ++checked;
  }
  EXPECT_GE(checked, 3);  // Node, Leaf, Holder at least
}

fs::path OomDump(const TempDir& dir) {
  fs::path dump = dir.path() / "oom.hprof";
  Shell("java -Xmx24m -XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath=" + dump.string() + " -cp " +
        dir.path().string() + " HeapFixture oom >/dev/null 2>&1");
  return dump;
}

TEST_F(HprofJvmTest, OutOfMemoryDumpMatchesOracle) {
  fs::path dump = OomDump(dir_);
  ASSERT_TRUE(fs::exists(dump));
  ExpectSameAsOracle(dump, dir_);
}

TEST_F(HprofJvmTest, TruncatedDumpLoadsUpToTheDamage) {
  fs::path dump = OomDump(dir_);
  ASSERT_TRUE(fs::exists(dump));
  std::string bytes = ReadFileBytes(dump);
  TraceProcessor whole;
  ASSERT_TRUE(whole.LoadFile(dump.string()).ok());
  int64_t all = std::stoll(FathomRows(whole, "select count(*) from heap_graph_object")[0][0]);
  // Ten bytes are not even the magic: no format to detect, an error, no crash.
  TraceProcessor stub;
  EXPECT_FALSE(stub.LoadFile(dir_.Write("stub.hprof", bytes.substr(0, 10)).string()).ok());
  for (size_t cut : {size_t{25}, size_t{40}, bytes.size() / 10, bytes.size() / 2,
                     bytes.size() - bytes.size() / 10, bytes.size() - 1}) {
    fs::path part = dir_.Write("cut.hprof", bytes.substr(0, cut));
    TraceProcessor tp;
    Status st = tp.LoadFile(part.string());
    // A cut before any record leaves nothing to load: an error, which says why.
    std::string said = st.ok() ? "" : st.message();
    for (const std::string& w : tp.report().warnings) said += w;
    if (st.ok()) {
      int64_t n = std::stoll(FathomRows(tp, "select count(*) from heap_graph_object")[0][0]);
      EXPECT_LE(n, all) << cut;
    } else {
      EXPECT_LT(cut, size_t{1000}) << st.message();
    }
    EXPECT_NE(said.find("cut.hprof: byte offset"), std::string::npos) << cut << ": " << said;
  }
}

// An ART-style dump made here byte by byte: 4-byte ids, HEAP_DUMP_INFO heap
// records ("app", "zygote", "image"), ART's root kinds (0x89..0x8E), statics,
// an object array and a primitive array; every value compared with the oracle.
class ArtDump {
 public:
  ArtDump() {
    Bytes("JAVA PROFILE 1.0.3", 19);  // with its NUL
    U4(4);                            // id size
    U4(0x18B), U4(0xCFE5A3C1);        // milliseconds
  }
  void U4(uint32_t v, std::string* to = nullptr) {
    std::string& out = to ? *to : file_;
    for (int s = 24; s >= 0; s -= 8) out += static_cast<char>((v >> s) & 0xFF);
  }
  void Bytes(const char* b, size_t n) { file_.append(b, n); }
  void Record(uint8_t tag, const std::string& body) {
    file_ += static_cast<char>(tag);
    U4(0);
    U4(static_cast<uint32_t>(body.size()));
    file_ += body;
  }
  void String(uint32_t id, const std::string& s) {
    std::string b;
    U4(id, &b);
    Record(0x01, b + s);
  }
  void LoadClass(uint32_t id, uint32_t name) {
    std::string b;
    U4(1, &b), U4(id, &b), U4(0, &b), U4(name, &b);
    Record(0x02, b);
  }
  std::string seg;
  void Sub(uint8_t tag, std::initializer_list<uint32_t> words, const std::string& tail = "") {
    seg += static_cast<char>(tag);
    for (uint32_t w : words) U4(w, &seg);
    seg += tail;
  }
  std::string Finish() {
    Record(0x1C, seg);
    Record(0x2C, "");
    return file_;
  }

 private:
  std::string file_;
};

TEST(HprofArtTest, HeapsRootsAndStaticsMatchOracle) {
  if (!fs::exists(Oracle())) GTEST_SKIP() << "no oracle at " << Oracle();
  ArtDump d;
  const char* names[] = {"",
                         "java.lang.Object",
                         "java.lang.Class",
                         "com.example.Foo",
                         "next",
                         "app",
                         "zygote",
                         "image",
                         "byte[]",
                         "val",
                         "java.lang.Object[]",
                         "sfield",
                         "int[]"};
  for (uint32_t i = 1; i < std::size(names); ++i) d.String(i, names[i]);
  uint32_t class_names[][2] = {{100, 1}, {101, 2}, {102, 3}, {103, 8}, {104, 10}, {105, 12}};
  for (auto [id, name] : class_names) d.LoadClass(id, name);
  auto class_dump = [&](uint32_t id, uint32_t super, uint32_t size, std::string statics,
                        std::string fields) {
    d.Sub(0x20, {id, 0, super, 0, 0, 0, 0, 0, size});
    d.seg += std::string("\0\0", 2) + statics + fields;  // no constant pool
  };
  std::string none("\0\0", 2);
  auto w = [&](std::initializer_list<uint32_t> v) {
    std::string s;
    for (uint32_t x : v) d.U4(x, &s);
    return s;
  };
  d.Sub(0xFE, {1, 5});  // heap "app"
  class_dump(100, 0, 8, none, none);
  class_dump(101, 100, 120, none, none);
  class_dump(102, 100, 16, std::string("\0\1", 2) + w({11}) + '\2' + w({300}),
             std::string("\0\2", 2) + w({4}) + '\2' + w({9}) + '\x0A');
  class_dump(103, 100, 12, none, none);
  class_dump(104, 100, 12, none, none);
  class_dump(105, 100, 12, none, none);
  auto instance = [&](uint32_t id, uint32_t next, uint32_t val) {
    d.Sub(0x21, {id, 0, 102, 8}, w({next, val}));
  };
  instance(300, 301, 7);
  instance(301, 0, 8);
  d.Sub(0xFE, {2, 6});  // "zygote"
  instance(302, 300, 9);
  d.Sub(0x22, {303, 0, 3, 104, 300, 0, 302});
  d.Sub(0x23, {304, 0, 5}, std::string("\x08") + "abcde");
  d.Sub(0xFE, {3, 7});  // "image"
  instance(306, 0, 1);
  instance(307, 306, 1);
  instance(308, 0, 2);       // unreachable
  d.Sub(0x89, {301});        // interned string
  d.Sub(0x8D, {302});        // VM internal
  d.Sub(0x8E, {303, 1, 2});  // JNI monitor
  d.Sub(0x8B, {306});        // debugger
  d.Sub(0x8A, {307});        // finalizing
  d.Sub(0x8C, {304});        // reference cleanup
  TempDir dir;
  ExpectSameAsOracle(dir.Write("art.hprof", d.Finish()), dir);
}

}  // namespace
}  // namespace fathom
