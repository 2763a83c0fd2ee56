// The ftrace path against fake tracefs roots built from the real header/format files of
// three kernels (../shared/testdata/tracefs): the test writes raw ring-buffer pages the way
// the kernel lays them out (its own reading of header_page and the format files, not the
// recorder's), runs fathom-recorder --tracefs-root on them and compares what comes out.
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <thread>

#include "ftrace_format.h"
#include "perfetto/trace/trace.pb.h"
#include "test_util.h"

namespace fathom::recorder_test {
namespace {

namespace pp = perfetto::protos;
const std::string kTracefs = std::string(FATHOM_SHARED_DIR) + "/testdata/tracefs";

struct Field {
  uint32_t offset, size;
};
struct Format {
  uint32_t id = 0;
  std::map<std::string, Field> fields;
  std::set<std::string> data_loc;  // __data_loc strings: u32 (len << 16 | offset)
  uint32_t size = 0;               // bytes up to the end of the last fixed field
};

// The test's own reading of a format/header_page file (independent of the recorder's).
Format ReadFormat(const std::string& path) {
  Format f;
  std::string text = ReadFileOrDie(path);
  std::smatch m;
  if (std::regex_search(text, m, std::regex("ID: (\\d+)"))) f.id = std::stoul(m[1]);
  std::regex field_re("field:([^;]*);\\s*offset:(\\d+);\\s*size:(\\d+);");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), field_re);
       it != std::sregex_iterator(); ++it) {
    std::string decl = (*it)[1];
    decl = std::regex_replace(decl, std::regex("\\[[^\\]]*\\]$"), "");  // [16], [], [30+1]
    std::smatch nm;
    std::regex_search(decl, nm, std::regex("(\\w+)$"));
    Field fl{static_cast<uint32_t>(std::stoul((*it)[2])),
             static_cast<uint32_t>(std::stoul((*it)[3]))};
    f.fields[nm[1]] = fl;
    if (decl.find("__data_loc") != std::string::npos) f.data_loc.insert(nm[1]);
    f.size = std::max(f.size, fl.offset + fl.size);
  }
  return f;
}

// Builds one ring-buffer page following header_page + header_event.
class PageWriter {
 public:
  PageWriter(const Format& header_page, uint64_t page_ts) : hp_(header_page), ts_(page_ts) {
    const Field& data = hp_.fields.at("data");
    page_.assign(data.offset + data.size, 0);
    pos_ = data.offset;
    Put(hp_.fields.at("timestamp").offset, page_ts, 8);
  }
  void Data(uint64_t ts, std::vector<uint8_t> payload, bool long_form = false) {
    uint64_t delta = ts - ts_;
    if (delta >= (1u << 27)) {  // time_extend: low 27 bits in the header, the rest after
      Word(30 | static_cast<uint32_t>((delta & ((1u << 27) - 1)) << 5));
      Word(static_cast<uint32_t>(delta >> 27));
      delta = 0;
    }
    ts_ = ts;
    payload.resize((payload.size() + 3) & ~size_t{3});
    if (long_form || payload.size() > 28 * 4) {
      Word(static_cast<uint32_t>(delta << 5));
      Word(static_cast<uint32_t>(payload.size() + 4));
    } else {
      Word(static_cast<uint32_t>(payload.size() / 4) | static_cast<uint32_t>(delta << 5));
    }
    page_.insert(page_.begin() + pos_, payload.begin(), payload.end());
    page_.resize(page_.size() - payload.size());
    pos_ += payload.size();
  }
  // A discarded event: padding with a length (which counts its own length word).
  void Discarded(uint32_t bytes) {
    Word(29 | (1u << 5));
    Word(bytes);
    pos_ += bytes - 4;
  }
  // Padding to the end of the page (time_delta 0).
  void TailPadding() { Word(29); }
  // Finishes the header; `lost` sets the missed-events flag, `stored` also stores a count.
  std::string Finish(bool lost = false, uint64_t stored = 0) {
    const Field& commit = hp_.fields.at("commit");
    uint64_t size = pos_ - hp_.fields.at("data").offset;
    uint64_t c = size | (lost ? 1ull << 31 : 0) | (stored ? 1ull << 30 : 0);
    if (stored) Put(pos_, stored, commit.size);
    Put(commit.offset, c, commit.size);
    return std::string(page_.begin(), page_.end());
  }

 private:
  void Word(uint32_t v) {
    Put(pos_, v, 4);
    pos_ += 4;
  }
  void Put(size_t at, uint64_t v, uint32_t n) { memcpy(&page_[at], &v, n); }
  Format hp_;
  uint64_t ts_;
  std::vector<uint8_t> page_;
  size_t pos_;
};

struct Written {
  uint32_t cpu;
  uint64_t ts;
  std::string name;
  int32_t pid;
  std::map<std::string, std::string> strs;
  std::map<std::string, int64_t> ints;
};

class FakeTracefs {
 public:
  explicit FakeTracefs(const std::string& kernel) : src_(kTracefs + "/" + kernel + "/events") {
    CopyFile(src_ + "/header_page", dir_ / "events/header_page");
    // The 3.10 capture has no header_event: the recorder must fall back to the kernel's
    // fixed record-type codes.
    if (std::filesystem::exists(src_ + "/header_event"))
      CopyFile(src_ + "/header_event", dir_ / "events/header_event");
    header_page_ = ReadFormat(src_ + "/header_page");
    WriteStringToFile(dir_ / "trace_clock", "[local] global boot\n");
    WriteStringToFile(dir_ / "buffer_size_kb", "1408\n");
    WriteStringToFile(dir_ / "tracing_on", "0\n");
  }
  bool Has(const std::string& event) {
    return std::filesystem::exists(src_ + "/" + event + "/format");
  }
  Format Add(const std::string& event) {
    CopyFile(src_ + "/" + event + "/format", dir_ / ("events/" + event + "/format"));
    WriteStringToFile(dir_ / ("events/" + event + "/enable"), "0\n");
    Format f = ReadFormat(src_ + "/" + event + "/format");
    formats_[event] = f;
    return f;
  }
  // A record of `event` with the given field values (strings and ints).
  std::vector<uint8_t> Record(const std::string& event, const Written& w) {
    const Format& f = formats_.at(event);
    std::vector<uint8_t> rec(f.size, 0);
    auto put = [&](const std::string& name, int64_t v) {
      const Field& fl = f.fields.at(name);
      memcpy(&rec[fl.offset], &v, fl.size);
    };
    put("common_type", f.id);
    put("common_pid", w.pid);
    for (const auto& [name, v] : w.ints) put(name, v);
    for (const auto& [name, s] : w.strs) {
      const Field& fl = f.fields.at(name);
      if (f.data_loc.count(name)) {
        uint32_t loc = static_cast<uint32_t>((s.size() + 1) << 16 | rec.size());
        memcpy(&rec[fl.offset], &loc, 4);
        rec.insert(rec.end(), s.begin(), s.end());
        rec.push_back(0);
      } else if (fl.size == 0) {  // char buf[] (print): to the end of the record
        rec.resize(fl.offset);
        rec.insert(rec.end(), s.begin(), s.end());
        rec.push_back(0);
      } else {
        memcpy(&rec[fl.offset], s.data(), std::min<size_t>(s.size(), fl.size - 1));
      }
    }
    return rec;
  }
  void SetPages(uint32_t cpu, const std::string& pages) {
    WriteStringToFile(dir_ / ("per_cpu/cpu" + std::to_string(cpu) + "/trace_pipe_raw"), pages);
  }
  const Format& header_page() const { return header_page_; }
  const TempDir& dir() const { return dir_; }

 private:
  TempDir dir_;
  std::string src_;
  Format header_page_;
  std::map<std::string, Format> formats_;
};

// First event of group `sched` with a format in this kernel that FtraceEvent has no typed
// field for: the recorder must write it as a GenericFtraceEvent.
std::string PickGenericEvent(const std::string& kernel) {
  std::vector<std::string> names;
  for (const auto& e :
       std::filesystem::directory_iterator(kTracefs + "/" + kernel + "/events/sched"))
    names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  for (const std::string& n : names) {
    if (pp::FtraceEvent::descriptor()->FindFieldByName(n)) continue;
    Format f = ReadFormat(kTracefs + "/" + kernel + "/events/sched/" + n + "/format");
    bool ints_only = f.fields.size() > 4;
    for (const auto& [name, fl] : f.fields)
      if (fl.size != 1 && fl.size != 2 && fl.size != 4 && fl.size != 8) ints_only = false;
    if (ints_only) return n;
  }
  return "";
}

struct Decoded {
  std::vector<Written> events;
  std::vector<std::pair<uint32_t, bool>> bundles;  // cpu, lost_events
  uint64_t cpu0_overrun = 0;
  std::vector<std::string> unknown_events;
};

Decoded Decode(const pp::Trace& trace) {
  Decoded d;
  for (const pp::TracePacket& p : trace.packet()) {
    if (p.has_ftrace_stats() && p.ftrace_stats().phase() == pp::FtraceStats::END_OF_TRACE) {
      for (const auto& c : p.ftrace_stats().cpu_stats())
        if (c.cpu() == 0) d.cpu0_overrun = c.overrun();
      for (const auto& u : p.ftrace_stats().unknown_ftrace_events()) d.unknown_events.push_back(u);
    }
    if (!p.has_ftrace_events()) continue;
    const pp::FtraceEventBundle& b = p.ftrace_events();
    d.bundles.emplace_back(b.cpu(), b.lost_events());
    for (const pp::FtraceEvent& e : b.event()) {
      Written w{b.cpu(), e.timestamp(), "", static_cast<int32_t>(e.pid()), {}, {}};
      if (e.has_sched_switch()) {
        const auto& s = e.sched_switch();
        w.name = "sched_switch";
        w.strs = {{"prev_comm", s.prev_comm()}, {"next_comm", s.next_comm()}};
        w.ints = {{"prev_pid", s.prev_pid()},
                  {"prev_prio", s.prev_prio()},
                  {"prev_state", s.prev_state()},
                  {"next_pid", s.next_pid()},
                  {"next_prio", s.next_prio()}};
      } else if (e.has_sched_waking()) {
        const auto& s = e.sched_waking();
        w.name = "sched_waking";
        w.strs = {{"comm", s.comm()}};
        w.ints = {{"pid", s.pid()},
                  {"prio", s.prio()},
                  {"success", s.success()},
                  {"target_cpu", s.target_cpu()}};
      } else if (e.has_sched_wakeup()) {
        const auto& s = e.sched_wakeup();
        w.name = "sched_wakeup";
        w.strs = {{"comm", s.comm()}};
        w.ints = {{"pid", s.pid()},
                  {"prio", s.prio()},
                  {"success", s.success()},
                  {"target_cpu", s.target_cpu()}};
      } else if (e.has_irq_handler_entry()) {
        w.name = "irq_handler_entry";
        w.strs = {{"name", e.irq_handler_entry().name()}};
        w.ints = {{"irq", e.irq_handler_entry().irq()},
                  {"handler", e.irq_handler_entry().handler()}};
      } else if (e.has_print()) {
        w.name = "print";
        w.strs = {{"buf", e.print().buf()}};
        w.ints = {{"ip", static_cast<int64_t>(e.print().ip())}};
      } else if (e.has_generic()) {
        w.name = e.generic().event_name();
        for (const auto& f : e.generic().field())
          w.ints[f.name()] =
              f.has_int_value() ? f.int_value() : static_cast<int64_t>(f.uint_value());
      }
      d.events.push_back(w);
    }
    if (b.has_compact_sched()) {
      const auto& c = b.compact_sched();
      uint64_t ts = 0;
      for (int i = 0; i < c.switch_timestamp_size(); i++) {
        ts += c.switch_timestamp(i);
        Written w{b.cpu(), ts, "sched_switch", 0, {}, {}};
        w.strs = {{"next_comm", c.intern_table(static_cast<int>(c.switch_next_comm_index(i)))}};
        w.ints = {{"prev_state", c.switch_prev_state(i)},
                  {"next_pid", c.switch_next_pid(i)},
                  {"next_prio", c.switch_next_prio(i)}};
        d.events.push_back(w);
      }
      ts = 0;
      for (int i = 0; i < c.waking_timestamp_size(); i++) {
        ts += c.waking_timestamp(i);
        Written w{b.cpu(), ts, "sched_waking", 0, {}, {}};
        w.strs = {{"comm", c.intern_table(static_cast<int>(c.waking_comm_index(i)))}};
        w.ints = {{"pid", c.waking_pid(i)},
                  {"prio", c.waking_prio(i)},
                  {"target_cpu", c.waking_target_cpu(i)}};
        d.events.push_back(w);
      }
    }
  }
  std::stable_sort(d.events.begin(), d.events.end(), [](const Written& a, const Written& b) {
    return std::tie(a.cpu, a.ts) < std::tie(b.cpu, b.ts);
  });
  return d;
}

class FtraceKernels : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

TEST_P(FtraceKernels, DecodesPagesWrittenFromTheRealLayouts) {
  const auto& [kernel, compact] = GetParam();
  FakeTracefs fs(kernel);
  fs.Add("sched/sched_switch");
  std::string wake = fs.Has("sched/sched_waking") ? "sched_waking" : "sched_wakeup";
  fs.Add("sched/" + wake);
  Format print = fs.Add("ftrace/print");
  std::string generic = PickGenericEvent(kernel);
  ASSERT_FALSE(generic.empty());
  Format gen = fs.Add("sched/" + generic);
  Format irq_format = fs.Add("irq/irq_handler_entry");

  const uint64_t t0 = 5'000'000'000ull;
  std::vector<Written> expected;
  auto sw = [&](uint32_t cpu, uint64_t ts, int32_t prev, int32_t next, int64_t state) {
    Written w{cpu,
              ts,
              "sched_switch",
              prev,
              {{"prev_comm", "prev" + std::to_string(prev)},
               {"next_comm", "next" + std::to_string(next)}},
              {{"prev_pid", prev},
               {"prev_prio", 120},
               {"prev_state", state},
               {"next_pid", next},
               {"next_prio", 100 + next % 20}}};
    expected.push_back(w);
    return w;
  };
  Written wk{0,
             t0 + 300,
             wake,
             10,
             {{"comm", "wakee"}},
             {{"pid", 77}, {"prio", 110}, {"success", 1}, {"target_cpu", 1}}};
  Written pr{0,
             t0 + (1ull << 28) + 7,
             "print",
             1234,
             {{"buf", "B|1234|test_slice\n"}},
             {{"ip", 0xffff0000}}};
  if (print.fields.at("ip").size == 4) pr.ints["ip"] = 0x7fff0000;
  Written ge{0, t0 + (1ull << 28) + 50, generic, 55, {}, {}};
  int64_t v = 1;
  for (const auto& [name, fl] : gen.fields)
    if (name.rfind("common_", 0) != 0) ge.ints[name] = v++ * 11;

  // cpu0, page 1: short and long records, a discarded event, a time extend, tail padding.
  PageWriter p1(fs.header_page(), t0);
  p1.Data(t0 + 100, fs.Record("sched/sched_switch", sw(0, t0 + 100, 10, 20, 1)));
  p1.Discarded(16);
  p1.Data(wk.ts, fs.Record("sched/" + wake, wk));
  expected.push_back(wk);
  p1.Data(pr.ts, fs.Record("ftrace/print", pr), /*long_form=*/true);
  expected.push_back(pr);
  p1.Data(ge.ts, fs.Record("sched/" + generic, ge));
  expected.push_back(ge);
  p1.Data(t0 + (1ull << 28) + 90,
          fs.Record("sched/sched_switch", sw(0, t0 + (1ull << 28) + 90, 20, 10, 0)),
          /*long_form=*/true);
  p1.TailPadding();
  // cpu0, page 2: the kernel lost 17 events before it and stored the count.
  PageWriter p2(fs.header_page(), t0 + 2'000'000'000ull);
  p2.Data(t0 + 2'000'000'100ull,
          fs.Record("sched/sched_switch", sw(0, t0 + 2'000'000'100ull, 10, 30, 2)));
  fs.SetPages(0, p1.Finish() + p2.Finish(/*lost=*/true, /*stored=*/17));
  // cpu1: one page.
  PageWriter p3(fs.header_page(), t0 + 50);
  p3.Data(t0 + 60, fs.Record("sched/sched_switch", sw(1, t0 + 60, 0, 40, 0)));
  Written irq{1, t0 + 1000, "irq_handler_entry", 0, {{"name", "eth0-rx"}}, {{"irq", 42}}};
  if (irq_format.fields.count("handler")) irq.ints["handler"] = 0x1234;  // not on 5.10
  p3.Data(irq.ts, fs.Record("irq/irq_handler_entry", irq));
  expected.push_back(irq);
  p3.Data(t0 + 5000, fs.Record("sched/sched_switch", sw(1, t0 + 5000, 40, 0, 1)));
  fs.SetPages(1, p3.Finish());

  std::string config = std::string("duration_ms: 200\n") +
                       "data_sources { config { name: \"linux.ftrace\" ftrace_config {\n"
                       "  ftrace_events: \"sched/sched_switch\" ftrace_events: \"sched/" +
                       wake + "\" ftrace_events: \"ftrace/print\" ftrace_events: \"sched/" +
                       generic +
                       "\"\n"
                       "  ftrace_events: \"irq/*\" ftrace_events: \"nosuch/event\"\n"
                       "  buffer_size_kb: 4096\n" +
                       (compact ? "  compact_sched { enabled: true }\n" : "") + "} } }\n";
  WriteStringToFile(fs.dir() / "config.txt", config);
  std::string out = fs.dir() / "trace.pftrace", err;
  ASSERT_EQ(RunRecorder({"-c", fs.dir() / "config.txt", "--txt", "-o", out, "--tracefs-root",
                         fs.dir().path()},
                        &err),
            0)
      << err;

  pp::Trace trace;
  ASSERT_TRUE(ParseTrace(out, &trace));
  Decoded got = Decode(trace);
  std::stable_sort(expected.begin(), expected.end(), [](const Written& a, const Written& b) {
    return std::tie(a.cpu, a.ts) < std::tie(b.cpu, b.ts);
  });
  ASSERT_EQ(got.events.size(), expected.size());
  for (size_t i = 0; i < expected.size(); i++) {
    const Written& e = expected[i];
    const Written& g = got.events[i];
    SCOPED_TRACE(kernel + " event " + std::to_string(i) + " " + e.name);
    EXPECT_EQ(g.cpu, e.cpu);
    EXPECT_EQ(g.ts, e.ts);
    EXPECT_EQ(g.name, e.name);
    bool compacted = compact && (e.name == "sched_switch" || e.name == "sched_waking");
    if (!compacted) {
      EXPECT_EQ(g.pid, e.pid);
    }
    for (const auto& [k, s] : e.strs) {
      if (compacted && g.strs.count(k) == 0) continue;  // compact drops prev_*
      EXPECT_EQ(g.strs.at(k), s) << k;
    }
    for (const auto& [k, n] : e.ints) {
      if (g.ints.count(k) == 0 && compacted) continue;
      ASSERT_TRUE(g.ints.count(k)) << k;
      EXPECT_EQ(g.ints.at(k), n) << k;
    }
  }
  // The lost-events page started its own bundle; its stored count reached the stats.
  bool lost_bundle = false;
  for (auto [cpu, lost] : got.bundles) lost_bundle |= cpu == 0 && lost;
  EXPECT_TRUE(lost_bundle);
  EXPECT_GE(got.cpu0_overrun, 17u);
  EXPECT_EQ(got.unknown_events, std::vector<std::string>{"nosuch/event"});

  // tracefs is restored.
  EXPECT_EQ(ReadFileOrDie(fs.dir() / "trace_clock"), "local");
  EXPECT_EQ(ReadFileOrDie(fs.dir() / "buffer_size_kb"), "1408");
  EXPECT_EQ(ReadFileOrDie(fs.dir() / "events/sched/sched_switch/enable"), "0");
  EXPECT_EQ(ReadFileOrDie(fs.dir() / "tracing_on"), "0");

  // Fathom's core reads it: a sched row per switch (in compact form the core uses each
  // CPU's first switch only to learn prev_pid); the atrace B -> a slice.
  TraceProcessor tp;
  Status st = tp.LoadFile(out);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(QueryInt(tp, "select count(*) from sched where cpu = 0"), compact ? 2 : 3);
  EXPECT_EQ(QueryInt(tp, "select count(*) from sched where cpu = 1"), compact ? 1 : 2);
  EXPECT_EQ(QueryInt(tp,
                     "select count(*) from sched where cpu = 0 and utid in "
                     "(select utid from thread where tid = 30)"),
            1);
  EXPECT_EQ(QueryInt(tp, "select count(*) from slice where name = 'test_slice'"), 1);
  EXPECT_EQ(QueryInt(tp, "select count(*) from ftrace_event where name = 'print'"), 1);
}

INSTANTIATE_TEST_SUITE_P(
    RealLayouts, FtraceKernels,
    ::testing::Combine(::testing::Values("android_raven_AOSP.MASTER_5.10.43",
                                         "android_seed_N2F62_3.10.49",
                                         "android_walleye_OPM5.171019.017.A1_4.4.88"),
                       ::testing::Bool()),
    [](const auto& info) {
      std::string k = std::get<0>(info.param);
      return k.substr(8, k.find('_', 8) - 8) + (std::get<1>(info.param) ? "_compact" : "_full");
    });

// The recorder's format parser reads every format file of the three kernels and agrees
// with the test's own reading of each field's offset and size.
TEST(FtraceFormat, ParsesEveryRealFormatFile) {
  int files = 0;
  for (const auto& k : std::filesystem::directory_iterator(kTracefs)) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(k.path() / "events")) {
      if (e.path().filename() != "format") continue;
      std::string group = e.path().parent_path().parent_path().filename();
      Result<recorder::EventFormat> f = recorder::ParseEventFormat(ReadFileOrDie(e.path()), group);
      ASSERT_TRUE(f.ok()) << e.path() << ": " << f.status().message();
      Format mine = ReadFormat(e.path());
      EXPECT_EQ(f->id, mine.id) << e.path();
      EXPECT_EQ(f->name, e.path().parent_path().filename().string());
      EXPECT_EQ(f->fields.size() + f->common_fields.size(), mine.fields.size()) << e.path();
      for (const auto& fields : {f->fields, f->common_fields}) {
        for (const recorder::FormatField& fl : fields) {
          ASSERT_TRUE(mine.fields.count(fl.name)) << e.path() << " " << fl.name;
          EXPECT_EQ(fl.offset, mine.fields[fl.name].offset) << e.path() << " " << fl.name;
          EXPECT_EQ(fl.size, mine.fields[fl.name].size) << e.path() << " " << fl.name;
        }
      }
      files++;
    }
    Result<recorder::PageHeaderLayout> hp =
        recorder::ParseHeaderPage(ReadFileOrDie((k.path() / "events/header_page").string()));
    ASSERT_TRUE(hp.ok());
    EXPECT_EQ(hp->page_size(), 4096u);
  }
  EXPECT_GT(files, 300);
  // Layouts differ between kernels: prev_state is 8 bytes on 5.10 and 4.4, 4 on 3.10.
  auto prev_state = [](const std::string& kernel) {
    auto f = recorder::ParseEventFormat(
        ReadFileOrDie(kTracefs + "/" + kernel + "/events/sched/sched_switch/format"), "sched");
    return f->Find("prev_state")->size;
  };
  EXPECT_EQ(prev_state("android_raven_AOSP.MASTER_5.10.43"), 8u);
  EXPECT_EQ(prev_state("android_seed_N2F62_3.10.49"), 4u);
  // __data_loc strings and old kernels' "char buf" with size 0 are strings.
  auto print = recorder::ParseEventFormat(
      ReadFileOrDie(kTracefs + "/android_seed_N2F62_3.10.49/events/ftrace/print/format"), "ftrace");
  EXPECT_TRUE(print->Find("buf")->is_char_array);
  auto irq = recorder::ParseEventFormat(
      ReadFileOrDie(kTracefs + "/android_seed_N2F62_3.10.49/events/irq/irq_handler_entry/format"),
      "irq");
  EXPECT_TRUE(irq->Find("name")->is_data_loc);
  EXPECT_TRUE(irq->Find("handler")->is_pointer);
}

// Pids that first appear in sched events get ProcessTree entries (process_stats without a
// start scan): here a thread of this test process, switched to in a fake page.
TEST(Ftrace, PidsFromSchedEventsGetProcessTreeEntries) {
  std::atomic<pid_t> tid{0};
  std::atomic<bool> done{false};
  std::thread worker([&] {
    tid = static_cast<pid_t>(syscall(SYS_gettid));
    while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  });
  while (!tid) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  FakeTracefs fs("android_raven_AOSP.MASTER_5.10.43");
  fs.Add("sched/sched_switch");
  PageWriter page(fs.header_page(), 1000);
  Written w{0,
            1100,
            "sched_switch",
            0,
            {{"prev_comm", "swapper"}, {"next_comm", "worker"}},
            {{"prev_pid", 0},
             {"prev_prio", 120},
             {"prev_state", 0},
             {"next_pid", tid},
             {"next_prio", 120}}};
  page.Data(w.ts, fs.Record("sched/sched_switch", w));
  fs.SetPages(0, page.Finish());
  WriteStringToFile(fs.dir() / "c.txt",
                    "duration_ms: 200 data_sources { config { name: \"linux.ftrace\" "
                    "ftrace_config { ftrace_events: \"sched/sched_switch\" } } } "
                    "data_sources { config { name: \"linux.process_stats\" } }");
  std::string out = fs.dir() / "t.pftrace", err;
  int rc = RunRecorder(
      {"-c", fs.dir() / "c.txt", "--txt", "-o", out, "--tracefs-root", fs.dir().path()}, &err);
  done = true;
  worker.join();
  ASSERT_EQ(rc, 0) << err;
  pp::Trace trace;
  ASSERT_TRUE(ParseTrace(out, &trace));
  bool thread = false, process = false;
  for (const pp::TracePacket& p : trace.packet()) {
    for (const auto& t : p.process_tree().threads())
      thread |= t.tid() == tid && t.tgid() == getpid();
    for (const auto& pr : p.process_tree().processes()) process |= pr.pid() == getpid();
  }
  EXPECT_TRUE(thread);
  EXPECT_TRUE(process);
}

TEST(Ftrace, MissingTracefsIsAnActionableError) {
  TempDir dir;
  WriteStringToFile(dir / "c.txt",
                    "data_sources { config { name: \"linux.ftrace\" ftrace_config { "
                    "ftrace_events: \"sched/sched_switch\" } } }");
  std::string err;
  EXPECT_EQ(
      RunRecorder(
          {"-c", dir / "c.txt", "--txt", "-o", dir / "t", "--tracefs-root", dir / "nothing"}, &err),
      3);
  EXPECT_EQ(err, "fathom-recorder: tracefs not found at " + (dir / "nothing") +
                     " (no events/header_page)\n");
}

}  // namespace
}  // namespace fathom::recorder_test
