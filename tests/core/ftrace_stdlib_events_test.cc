// Ftrace events imported for the standard library's modules.
// clock_set_rate / clock_enable / clock_disable ftrace events: one global
// counter per clock and kind, the clock as its linux_device dimension.
// Input: tests/core/ftrace/clock_events.textproto (encoded by protoc at build
// time); expected rows from trace_processor_shell v58.2 on the same trace.
#include <gtest/gtest.h>

#include <string>

#include "core/sql/result_printer.h"
#include "core/trace_processor.h"

namespace fathom {
namespace {

TEST(FtraceClockEvents, CountersAsUpstream) {
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(std::string(FATHOM_FTRACE_DATA_DIR) + "/clock_events.pb").ok());
  auto it = tp.Query(
      "select t.id, t.name, t.type, a.key, a.display_value, c.ts, c.value from counter_track t "
      "left join args a on a.arg_set_id = t.dimension_arg_set_id "
      "join counter c on c.track_id = t.id order by c.ts");
  std::string out;
  ASSERT_TRUE(PrintResults(it.get(), ResultFormat::kCsv, &out).ok());
  EXPECT_EQ(out,
            "\"id\",\"name\",\"type\",\"key\",\"display_value\",\"ts\",\"value\"\n"
            "0,\"dom Frequency\",\"clock_frequency\",\"linux_device\",\"dom\",100,400.000000\n"
            "1,\"dom State\",\"clock_state\",\"linux_device\",\"dom\",200,1.000000\n"
            "1,\"dom State\",\"clock_state\",\"linux_device\",\"dom\",300,0.000000\n");
}

// pKVM hypervisor events (tests/core/ftrace/pkvm_events.textproto, no pid on
// any): hyp slices on per-CPU tracks, the host_* event's fields as args.
TEST(FtracePkvmEvents, HypSlicesAsUpstream) {
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(std::string(FATHOM_FTRACE_DATA_DIR) + "/pkvm_events.pb").ok());
  auto it = tp.Query(
      "select s.ts, s.dur, s.name, s.category, t.name as track, t.type, c.cpu, "
      "s.arg_set_id is null as no_args, extract_arg(s.arg_set_id, 'hyp_enter_reason') as reason, "
      "extract_arg(s.arg_set_id, 'id') as id, extract_arg(s.arg_set_id, 'forwarded') as fwd, "
      "extract_arg(s.arg_set_id, 'esr') as esr, extract_arg(s.arg_set_id, 'addr') as addr "
      "from slice s join track t on s.track_id = t.id join cpu_track c on c.id = t.id "
      "order by s.ts");
  std::string out;
  ASSERT_TRUE(PrintResults(it.get(), ResultFormat::kCsv, &out).ok());
  EXPECT_EQ(out,
            "\"ts\",\"dur\",\"name\",\"category\",\"track\",\"type\",\"cpu\",\"no_args\","
            "\"reason\",\"id\",\"fwd\",\"esr\",\"addr\"\n"
            "1000,500,\"hyp\",\"pkvm_hyp\",\"pkVM Hypervisor CPU 2\",\"pkvm_hypervisor\",2,0,"
            "\"host_smc\",7,1,\"[NULL]\",\"[NULL]\"\n"
            "1200,700,\"hyp\",\"pkvm_hyp\",\"pkVM Hypervisor CPU 3\",\"pkvm_hypervisor\",3,0,"
            "\"host_mem_abort\",\"[NULL]\",\"[NULL]\",42,-1\n"
            "2000,300,\"hyp\",\"pkvm_hyp\",\"pkVM Hypervisor CPU 2\",\"pkvm_hypervisor\",2,1,"
            "\"[NULL]\",\"[NULL]\",\"[NULL]\",\"[NULL]\",\"[NULL]\"\n");
}

// gpu_frequency on two GPUs and sys_stats cpuidle residencies
// (tests/core/ftrace/gpu_cpuidle.textproto): a track per GPU (ugpu in order
// of appearance, gpu the event's id) and per CPU idle state, with dimensions.
TEST(FtraceGpuAndCpuIdle, TracksAsUpstream) {
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(std::string(FATHOM_FTRACE_DATA_DIR) + "/gpu_cpuidle.pb").ok());
  auto csv = [&](const std::string& sql) {
    auto it = tp.Query(sql);
    std::string out;
    EXPECT_TRUE(PrintResults(it.get(), ResultFormat::kCsv, &out).ok());
    return out;
  };
  EXPECT_EQ(csv("select t.name, t.type, c.ts, c.value, (select group_concat(key || '=' || "
                "display_value, ',') from args a where a.arg_set_id = t.dimension_arg_set_id) "
                "as dims from counter c join counter_track t on c.track_id = t.id "
                "order by c.ts, t.name"),
            "\"name\",\"type\",\"ts\",\"value\",\"dims\"\n"
            "\"gpufreq\",\"gpu_frequency\",100,300.000000,\"ugpu=0,gpu=1\"\n"
            "\"gpufreq\",\"gpu_frequency\",200,500.000000,\"ugpu=1,gpu=0\"\n"
            "\"gpufreq\",\"gpu_frequency\",300,400.000000,\"ugpu=0,gpu=1\"\n"
            "\"cpuidle1.C2\",\"cpu_idle_state\",1000,20.000000,\"cpu=1,state=C2\"\n"
            "\"cpuidle1.WFI\",\"cpu_idle_state\",1000,10.000000,\"cpu=1,state=WFI\"\n");
  EXPECT_EQ(csv("select id, name, unit, ugpu, gpu_id from gpu_counter_track order by id"),
            "\"id\",\"name\",\"unit\",\"ugpu\",\"gpu_id\"\n"
            "0,\"gpufreq\",\"kHz\",0,1\n1,\"gpufreq\",\"kHz\",1,0\n");
}

}  // namespace
}  // namespace fathom
