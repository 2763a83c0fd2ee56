// fathom-cli symbolize end to end: a real -g binary's functions, frames that
// name only (mapping, rel_pc), llvm-symbolizer, ModuleSymbols appended to the
// trace and imported back. Expected names and lines come from `nm`, `readelf`
// and the test program's source text, never from the code under test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "core/symbols/elf_build_id.h"
#include "core/symbols/llvm_symbolizer.h"
#include "core/symbols/proguard_map.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/core/symbols/test_util.h"

namespace fathom::symbols_test {
namespace {
namespace fs = std::filesystem;
using fathom::testing::ReadFileBytes;
using fathom::testing::TempDir;
using fathom::testing::WriteFileBytes;

const std::string kCli = FATHOM_CLI;

TEST(LlvmSymbolizerJson, ParsesInlinedFramesAndErrors) {
  auto r = symbols::LlvmSymbolizer::ParseJsonLine(
      R"j({"Address":"0x113d","ModuleName":"p","Symbol":[{"FileName":"/s/p.cc","FunctionName":"inl","Line":2},)j"
      R"j({"FileName":"/s/p.cc","FunctionName":"leaf(int)","Line":3}]})j");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].function_name, "inl");
  EXPECT_EQ((*r)[1].function_name, "leaf(int)");
  EXPECT_EQ((*r)[1].line, 3u);
  auto unknown = symbols::LlvmSymbolizer::ParseJsonLine(
      R"j({"Address":"0x1","Symbol":[{"FileName":"","FunctionName":"??","Line":0}]})j");
  ASSERT_TRUE(unknown.ok());
  EXPECT_TRUE(unknown->empty());
  auto err = symbols::LlvmSymbolizer::ParseJsonLine(
      R"j({"Address":"0x1","Error":{"Message":"No such file or directory"}})j");
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.status().message().find("No such file"), std::string::npos);
  EXPECT_FALSE(symbols::LlvmSymbolizer::ParseJsonLine("not json").ok());
}

TEST(ElfBuildId, BadInputIsAnError) {
  TempDir dir;
  auto p = dir.Write("notelf", "hello, this is not an ELF file at all........................");
  auto r = symbols::ReadElfBuildId(p.string());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(p.string()), std::string::npos);
  EXPECT_NE(r.status().message().find("not an ELF"), std::string::npos);
  // An ELF header whose section table lies past the end of the file.
  std::string elf(64, '\0');
  elf.replace(0, 4,
              "\x7f"
              "ELF");
  elf[4] = 2;
  elf[5] = 1;
  elf[40] = static_cast<char>(0xf0);  // e_shoff
  elf[58] = 64;                       // e_shentsize
  elf[60] = 3;                        // e_shnum
  auto bad = symbols::ReadElfBuildId(dir.Write("cut.so", elf).string());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("offset 240"), std::string::npos) << bad.status().message();
  EXPECT_FALSE(symbols::ReadElfBuildId((dir.path() / "missing").string()).ok());
}

#if defined(SYMBOLS_TESTPROG)

const std::string kProg = SYMBOLS_TESTPROG;
const std::string kOther = SYMBOLS_TESTPROG_OTHER;

// `nm` address of a symbol.
uint64_t NmAddress(const std::string& binary, const std::string& symbol) {
  RunResult r = RunCmd("nm " + Quote(binary));
  std::regex re("([0-9a-f]+) [Tt] " + symbol + "\n");
  std::smatch m;
  if (r.code != 0 || !std::regex_search(r.output, m, re)) {
    ADD_FAILURE() << "nm found no " << symbol;
    return 0;
  }
  return std::stoull(m[1].str(), nullptr, 16);
}

// 1-based line of the first source line containing `text`.
int SourceLine(const std::string& text) {
  std::ifstream in(SYMBOLS_TESTPROG_SOURCE);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(text) != std::string::npos) return n;
  ADD_FAILURE() << "no source line with " << text;
  return -1;
}

std::string ReadelfBuildId(const std::string& binary) {
  RunResult r = RunCmd("readelf -n " + Quote(binary));
  std::smatch m;
  std::regex re("Build ID: ([0-9a-f]+)");
  EXPECT_TRUE(std::regex_search(r.output, m, re)) << r.output;
  return m.size() > 1 ? m[1].str() : "";
}

TEST(ElfBuildId, MatchesReadelf) {
  auto id = symbols::ReadElfBuildId(kProg);
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_EQ(symbols::BuildIdToHex(*id), ReadelfBuildId(kProg));
  auto other = symbols::ReadElfBuildId(kOther);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(*other, *id);
}

// Every prefix of a real binary: an error or the right id, never a crash
// or a wrong answer.
TEST(ElfBuildId, TruncatedBinaries) {
  std::string bytes = ReadFileBytes(kProg);
  auto full = symbols::ReadElfBuildId(kProg);
  ASSERT_TRUE(full.ok());
  TempDir dir;
  int errors = 0;
  for (size_t len = 0; len < bytes.size(); len += 1 + len / 7) {
    auto p = dir.Write("cut", bytes.substr(0, len));
    auto r = symbols::ReadElfBuildId(p.string());
    if (r.ok())
      EXPECT_EQ(*r, *full) << "prefix of " << len << " bytes";
    else
      errors++;
  }
  EXPECT_GT(errors, 0);
}

struct Fn {
  std::string mangled, shown, source_text;
};
const Fn kFns[] = {
    {"main", "main", "int main(int argc"},
    {"_Z11MiddleFramei", "MiddleFrame(int)", "void MiddleFrame(int rounds) {"},
    {"_Z14AllocateInLeafi", "AllocateInLeaf(int)", "void* AllocateInLeaf(int n) {"},
};

// A heapprofd-style (Android 10 ProfilePacket) trace whose frames name only
// (mapping, rel_pc): three in `mapping_path` (the test program's functions,
// root first) and one in a library nobody has.
std::string UnsymbolizedTrace(const std::string& mapping_path) {
  perfetto::protos::Trace trace;
  // A dump's own timestamp is MONOTONIC_COARSE: without a clock snapshot readers
  // drop the dump.
  auto* snapshot = trace.add_packet();
  snapshot->set_trusted_packet_sequence_id(2);
  for (uint32_t clock : {6u /* BOOTTIME */, 4u /* MONOTONIC_COARSE */}) {
    auto* c = snapshot->mutable_clock_snapshot()->add_clocks();
    c->set_clock_id(clock);
    c->set_timestamp(50);
  }
  auto* packet = trace.add_packet();
  packet->set_timestamp(100);
  packet->set_trusted_packet_sequence_id(1);
  auto* pp = packet->mutable_profile_packet();
  auto add_string = [&](uint64_t iid, const std::string& s) {
    auto* str = pp->add_strings();
    str->set_iid(iid);
    str->set_str(s);
  };
  auto build_id = symbols::ReadElfBuildId(kProg);
  EXPECT_TRUE(build_id.ok());
  add_string(1, build_id.ok() ? *build_id : "");
  add_string(2, "nobody-has-this-id");
  uint64_t next = 10;
  auto add_mapping = [&](uint64_t iid, uint64_t build, const std::string& path, uint64_t start) {
    auto* m = pp->add_mappings();
    m->set_iid(iid);
    m->set_build_id(build);
    m->set_start(start);
    m->set_end(start + 0x100000);
    for (size_t b = 1; b < path.size();) {
      size_t e = path.find('/', b);
      if (e == std::string::npos) e = path.size();
      add_string(next, path.substr(b, e - b));
      m->add_path_string_ids(next++);
      b = e + 1;
    }
  };
  add_mapping(1, 1, mapping_path, 0x7000000000);
  add_mapping(2, 2, "/system/lib64/libmissing.so", 0x7100000000);
  auto* cs = pp->add_callstacks();
  cs->set_iid(1);
  uint64_t frame_iid = 1;
  for (const Fn& fn : kFns) {
    auto* f = pp->add_frames();
    f->set_iid(frame_iid);
    f->set_mapping_id(1);
    f->set_rel_pc(NmAddress(kProg, fn.mangled));
    cs->add_frame_ids(frame_iid++);
  }
  auto* f = pp->add_frames();
  f->set_iid(frame_iid);
  f->set_mapping_id(2);
  f->set_rel_pc(0x1234);
  cs->add_frame_ids(frame_iid);
  auto* dump = pp->add_process_dumps();
  dump->set_pid(42);
  dump->set_timestamp(100);
  auto* sample = dump->add_samples();
  sample->set_callstack_id(1);
  sample->set_self_allocated(4096);
  sample->set_alloc_count(2);
  return trace.SerializeAsString();
}

// The frames' symbols after loading `path`: "function|file basename|line".
std::vector<std::string> FrameSymbols(const std::string& path) {
  auto tp = Load(path);
  std::vector<std::string> out;
  for (std::string row : Rows(*tp,
                              "select s.name, s.source_file, s.line_number "
                              "from stack_profile_frame f join stack_profile_symbol s "
                              "on f.symbol_set_id = s.symbol_set_id order by f.rel_pc")) {
    // Keep the file's base name: the build directory differs per machine.
    size_t a = row.find('|'), b = row.rfind('|');
    std::string file = row.substr(a + 1, b - a - 1);
    out.push_back(row.substr(0, a) + "|" + fs::path(file).filename().string() + row.substr(b));
  }
  return out;
}

std::vector<std::string> ExpectedSymbols() {
  std::vector<std::pair<uint64_t, std::string>> v;
  for (const Fn& fn : kFns)
    v.push_back({NmAddress(kProg, fn.mangled),
                 fn.shown + "|testprog.cc|" + std::to_string(SourceLine(fn.source_text))});
  std::sort(v.begin(), v.end());
  std::vector<std::string> out;
  for (auto& [addr, s] : v) out.push_back(s);
  return out;
}

class SymbolizeCli : public ::testing::Test {
 protected:
  void SetUp() override {
    trace_ = dir_.Write("trace.pftrace", UnsymbolizedTrace("/data/app/libsymtest.so"));
    out_ = dir_.path() / "symbols.pb";
  }
  // Runs symbolize with `env`, appends the output to the trace, returns the
  // frames' symbols in the combined trace.
  std::vector<std::string> SymbolizeAndReload(const std::string& env, const std::string& flags,
                                              RunResult* run) {
    *run = RunCmd(env + " " + kCli + " symbolize " + Quote(trace_.string()) + " -o " +
                  Quote(out_.string()) + " " + flags);
    EXPECT_EQ(run->code, 0) << run->output;
    auto combined = dir_.Write("symbolized.pftrace", ReadFileBytes(trace_) + ReadFileBytes(out_));
    combined_ = combined.string();
    return FrameSymbols(combined_);
  }
  fs::path Place(const std::string& from, const std::string& rel) {
    fs::path to = dir_.path() / rel;
    fs::create_directories(to.parent_path());
    fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    return to;
  }
  TempDir dir_;
  fs::path trace_, out_;
  std::string combined_;
};

TEST_F(SymbolizeCli, FindsBinaryByFileNameUnderBinaryPath) {
  ASSERT_TRUE(FrameSymbols(trace_.string()).empty());
  Place(kProg, "bin/libsymtest.so");
  RunResult run;
  auto syms =
      SymbolizeAndReload("FATHOM_BINARY_PATH=" + Quote((dir_.path() / "bin").string()), "", &run);
  EXPECT_EQ(syms, ExpectedSymbols()) << run.output;
  EXPECT_NE(run.output.find("3 of 4 unsymbolized frames resolved"), std::string::npos)
      << run.output;
  // The report names the library nobody has and how many frames it left.
  EXPECT_NE(run.output.find("1  /system/lib64/libmissing.so"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("not found"), std::string::npos);
  // Symbols are applied at the end of the import: prepended works as well.
  auto prepended = dir_.Write("prepended.pftrace", ReadFileBytes(out_) + ReadFileBytes(trace_));
  EXPECT_EQ(FrameSymbols(prepended.string()), ExpectedSymbols());
  // The flamegraph of the symbolized trace shows the functions.
  RunResult fg = RunCmd(kCli + " flamegraph " + Quote(combined_) + " --format folded");
  EXPECT_EQ(fg.code, 0) << fg.output;
  EXPECT_NE(fg.output.find("main;MiddleFrame(int);AllocateInLeaf(int);"), std::string::npos)
      << fg.output;
}

TEST_F(SymbolizeCli, FindsBinaryByFullPathUnderPerfettoBinaryPath) {
  Place(kProg, "root/data/app/libsymtest.so");
  RunResult run;
  auto syms = SymbolizeAndReload("FATHOM_BINARY_PATH= PERFETTO_BINARY_PATH=/nonexistent:" +
                                     Quote((dir_.path() / "root").string()),
                                 "", &run);
  EXPECT_EQ(syms, ExpectedSymbols()) << run.output;
}

TEST_F(SymbolizeCli, BuildIdMismatchIsNotUsed) {
  fs::path wrong = Place(kOther, "bin/libsymtest.so");
  RunResult run;
  auto syms =
      SymbolizeAndReload("FATHOM_BINARY_PATH=" + Quote((dir_.path() / "bin").string()), "", &run);
  EXPECT_TRUE(syms.empty());
  EXPECT_NE(run.output.find("0 of 4"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("build id differs in " + wrong.string()), std::string::npos)
      << run.output;
}

TEST_F(SymbolizeCli, IndexModeFindsBinaryByBuildId) {
  Place(kOther, "tree/a/libsymtest.so");  // right name, wrong build id: skipped
  Place(kProg, "tree/b/c/renamed.bin");
  RunResult run;
  auto syms = SymbolizeAndReload("FATHOM_BINARY_PATH= PERFETTO_BINARY_PATH=",
                                 "--index " + Quote((dir_.path() / "tree").string()), &run);
  EXPECT_EQ(syms, ExpectedSymbols()) << run.output;
  // The same through upstream's PERFETTO_SYMBOLIZER_MODE=index.
  syms = SymbolizeAndReload(
      "PERFETTO_SYMBOLIZER_MODE=index FATHOM_BINARY_PATH=" + Quote((dir_.path() / "tree").string()),
      "", &run);
  EXPECT_EQ(syms, ExpectedSymbols()) << run.output;
}

// Debian's -dbgsym packages install a stripped program's symbols as a separate debug
// file named by its build id (/usr/lib/debug/.build-id/xx/yyyy.debug): symbolize finds it
// there with no binary path at all.
TEST_F(SymbolizeCli, FindsSeparateDebugFileByBuildId) {
  auto id = fathom::symbols::ReadElfBuildId(kProg);
  ASSERT_TRUE(id.ok()) << id.status().message();
  std::string hex = fathom::symbols::BuildIdToHex(*id);
  fs::path debug_dir = dir_.path() / "debug";
  fs::path debug_file = debug_dir / ".build-id" / hex.substr(0, 2) / (hex.substr(2) + ".debug");
  fs::create_directories(debug_file.parent_path());
  RunResult split =
      RunCmd("objcopy --only-keep-debug " + Quote(kProg) + " " + Quote(debug_file.string()));
  ASSERT_EQ(split.code, 0) << split.output;
  RunResult run;
  auto syms = SymbolizeAndReload("FATHOM_BINARY_PATH= PERFETTO_BINARY_PATH=",
                                 "--debug-dir " + Quote(debug_dir.string()), &run);
  EXPECT_EQ(syms, ExpectedSymbols()) << run.output;
  EXPECT_NE(run.output.find("3 of 4"), std::string::npos) << run.output;
  // A debug directory without the file: nothing resolves, and the report says so.
  syms = SymbolizeAndReload("FATHOM_BINARY_PATH= PERFETTO_BINARY_PATH=",
                            "--debug-dir " + Quote((dir_.path() / "empty").string()), &run);
  EXPECT_TRUE(syms.empty());
  EXPECT_NE(run.output.find("0 of 4"), std::string::npos) << run.output;
}

TEST_F(SymbolizeCli, MissingLlvmSymbolizerIsAClearError) {
  Place(kProg, "bin/libsymtest.so");
  RunResult run = RunCmd("FATHOM_LLVM_SYMBOLIZER=/nonexistent/llvm-symbolizer FATHOM_BINARY_PATH=" +
                         Quote((dir_.path() / "bin").string()) + " " + kCli + " symbolize " +
                         Quote(trace_.string()) + " -o " + Quote(out_.string()));
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.output.find("cannot start /nonexistent/llvm-symbolizer"), std::string::npos)
      << run.output;
  EXPECT_FALSE(fs::exists(out_));
}

TEST_F(SymbolizeCli, UnreadableTraceIsAClearError) {
  RunResult run = RunCmd(kCli + " symbolize " + Quote((dir_.path() / "nope.pftrace").string()) +
                         " -o " + Quote(out_.string()));
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.output.find("nope.pftrace"), std::string::npos) << run.output;
}

#if defined(SYMBOLS_HAVE_HEAPPROF)
// The real thing: the test program, stripped, runs under Fathom's heap
// profiler, so its frames have no names; symbolize finds the unstripped
// binary in FATHOM_BINARY_PATH by file name and build id.
TEST_F(SymbolizeCli, HeapProfileOfStrippedProgram) {
  fs::path run_dir = dir_.path() / "run";
  fs::create_directories(run_dir);
  fs::path stripped = run_dir / "symbols_testprog";
  ASSERT_EQ(RunCmd("strip -o " + Quote(stripped.string()) + " " + Quote(kProg)).code, 0);
  fs::path profile = dir_.path() / "profile.pftrace";
  // --block: on a loaded machine the collector may fall behind; dropped samples would make
  // the frame check below depend on timing.
  RunResult hp = RunCmd(kCli + " heapprofile --block --interval 512 -o " + Quote(profile.string()) +
                        " -- " + Quote(stripped.string()) + " 64");
  ASSERT_EQ(hp.code, 0) << hp.output;
  {
    auto tp = Load(profile.string());
    auto unnamed = Rows(*tp,
                        "select count(*) from stack_profile_frame f join stack_profile_mapping "
                        "m on f.mapping = m.id where m.name = '" +
                            stripped.string() + "' and (f.name is null or f.name = '')");
    ASSERT_EQ(unnamed.size(), 1u);
    ASSERT_GE(std::stoi(unnamed[0]), 2)
        << "the stripped program's frames should have no names; heapprofile said: " << hp.output
        << "\nmappings: "
        << ::testing::PrintToString(Rows(*tp, "select name from stack_profile_mapping"))
        << "\nstats: "
        << ::testing::PrintToString(Rows(*tp, "select name, value from stats where value > 0"));
  }
  fs::remove(stripped);  // the profiled path no longer exists, like a device path
  Place(kProg, "bin/symbols_testprog");
  trace_ = profile;
  RunResult run;
  auto syms =
      SymbolizeAndReload("FATHOM_BINARY_PATH=" + Quote((dir_.path() / "bin").string()), "", &run);
  std::string all;
  for (const std::string& s : syms) all += s + "\n";
  // Return addresses inside the callers: the call sites' lines.
  EXPECT_NE(all.find("MiddleFrame(int)|testprog.cc|" +
                     std::to_string(SourceLine("g_sink[i % 64] = AllocateInLeaf"))),
            std::string::npos)
      << all << run.output;
  EXPECT_NE(all.find("main|testprog.cc|"), std::string::npos) << all;
  RunResult fg = RunCmd(kCli + " flamegraph " + Quote(combined_) + " --format folded");
  EXPECT_NE(fg.output.find("main;MiddleFrame(int);AllocateInLeaf(int)"), std::string::npos)
      << fg.output;
}
#endif  // SYMBOLS_HAVE_HEAPPROF

#endif  // SYMBOLS_TESTPROG

}  // namespace
}  // namespace fathom::symbols_test
